"""Transformer Embedding Lab: routes to the pages and shows the device in the sidebar."""

import streamlit as st

from ui import device_choice, keep_settings

st.set_page_config(page_title="Transformer Embedding Lab", page_icon=":material/explore:", layout="wide")

pages = [
    st.Page("lessons/positional_encoding.py", title="Positional encoding", icon=":material/waves:", default=True),
    st.Page("lessons/word_embeddings.py", title="Word embeddings", icon=":material/translate:"),
    st.Page("lessons/embedding_space.py", title="The embedding space", icon=":material/scatter_plot:"),
    st.Page("lessons/learned_vs_sinusoidal.py", title="Learned vs sinusoidal", icon=":material/straighten:"),
    st.Page("lessons/input_layer.py", title="Input layer", icon=":material/stacks:"),
    st.Page("lessons/rotary.py", title="Rotary & long context", icon=":material/autorenew:"),
]

keep_settings()
choice = device_choice()
st.sidebar.caption(f"Computing on **{choice.device.type}** (set `EMBLAB_DEVICE` to auto, cpu, cuda or mps)")
if choice.warning:
    st.sidebar.warning(choice.warning)

st.navigation(pages).run()
