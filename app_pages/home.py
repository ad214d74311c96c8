"""Home: what positional encoding is for, the formula, and a map of the pages."""

import streamlit as st

from ui.pages import PAGES

st.title("Positional Encoding Explorer")
st.markdown(
    "Self-attention compares every token with every other one and ignores their order: "
    "*the cat sat on the mat* and *the mat sat on the cat* give it the same set of vectors. "
    "A **positional encoding** puts the order back by giving each position a vector of its own, "
    "added to the token's embedding. The original Transformer (Vaswani et al., 2017) uses "
    "sinusoids of geometrically spaced wavelengths:"
)
st.latex(
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right), \qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
)
st.markdown(
    "Each pair of dimensions $(2i, 2i+1)$ is a clock hand turning at its own speed "
    "$\\omega_i = 10000^{-2i/d_{model}}$: the first pair turns once every $2\\pi \\approx 6.28$ "
    "positions, the last one barely moves over thousands. Together they give every position a "
    "distinct code, and moving $k$ positions is the same rotation of every pair wherever you start."
)

st.subheader("Pages")
for page in PAGES:
    st.page_link(page.script, label=page.title, icon=page.icon)
    st.caption(page.summary)
