"""The floor for the browser benchmark: a minimal one-chart Streamlit app (a slider, a chart).

Whatever the real pages cost is compared with what this costs on the same machine, in the same
run: the ratios stay meaningful on a noisy, shared machine.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("Floor")
with st.sidebar:
    frequency = st.slider("frequency", 1, 50, 5, key="frequency")
x = np.linspace(0.0, 1.0, 200)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * frequency * x))), key="chart")
