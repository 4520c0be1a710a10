"""The floor for rerun timing: one slider and one line of text."""

import streamlit as st

value = st.slider("value", 0, 1000, key="trivial")
st.write(f"value = {value}")
