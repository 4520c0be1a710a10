"""The floor for rerun timing: one slider and one number box, each with one line of text."""

import streamlit as st

value = st.slider("value", 0, 1000, key="trivial")
st.write(f"value = {value}")
number = st.number_input("number", 0, 1000, key="trivial_number")
st.write(f"number = {number}")
