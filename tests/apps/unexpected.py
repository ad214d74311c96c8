"""A page that fails where a page and a fragment of the app could: in the page's run
(`?fail=page`), in a fragment's own rerun (the button) and in a widget's callback (the toggle).
Served by tests/apps/unexpected_serve.py as serve.py serves app.py."""

import streamlit as st

st.title("before the failure")
if st.query_params.get("fail") == "page":
    int(float("inf"))  # OverflowError, as a subnormal beta once gave the RoPE page


def fail_in_callback() -> None:
    raise KeyError("a callback's surprise")


st.toggle("callback", key="callback", on_change=fail_in_callback)


@st.fragment
def part() -> None:
    st.write("the fragment")
    if st.button("fail", key="fail"):
        raise ZeroDivisionError("a fragment's surprise")


part()
st.write("after the fragment")
