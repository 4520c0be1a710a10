"""Transformer Embedding Lab: routes to the pages and shows the device in the sidebar."""

import streamlit as st

from ui import device_choice

st.set_page_config(page_title="Transformer Embedding Lab", page_icon="🧭", layout="wide")

pages = [
    st.Page("lessons/positional_encoding.py", title="Positional encoding", icon="〰️", default=True),
    st.Page("lessons/word_embeddings.py", title="Word embeddings", icon="🔤"),
    st.Page("lessons/learned_vs_sinusoidal.py", title="Learned vs sinusoidal", icon="📏"),
]

choice = device_choice()
st.sidebar.caption(f"Computing on **{choice.device.type}** (set `EMBLAB_DEVICE` to auto, cpu, cuda or mps)")
if choice.warning:
    st.sidebar.warning(choice.warning)

st.navigation(pages).run()
