"""Transformer Embedding Lab: routes to the pages; the sidebar holds the language and the device."""

import streamlit as st

from ui import device_choice, keep_settings
from ui.i18n import LANG_KEY, LANGUAGES, problem, t

st.set_page_config(page_title="Transformer Embedding Lab", page_icon=":material/explore:", layout="wide")
keep_settings()
if LANG_KEY not in st.session_state:  # a link's ?lang=zh opens the app in Chinese
    st.session_state[LANG_KEY] = st.query_params.get(LANG_KEY) if st.query_params.get(LANG_KEY) in LANGUAGES else "en"
st.sidebar.segmented_control("Language / 语言", list(LANGUAGES), format_func=LANGUAGES.get, key=LANG_KEY, required=True)
if st.session_state[LANG_KEY] == "en":
    st.query_params.pop(LANG_KEY, None)
else:
    st.query_params[LANG_KEY] = st.session_state[LANG_KEY]

pages = [
    st.Page("lessons/positional_encoding.py", title=t("app.pe"), icon=":material/waves:", default=True),
    st.Page("lessons/word_embeddings.py", title=t("app.we"), icon=":material/translate:"),
    st.Page("lessons/embedding_space.py", title=t("app.es"), icon=":material/scatter_plot:"),
    st.Page("lessons/learned_vs_sinusoidal.py", title=t("app.lv"), icon=":material/straighten:"),
    st.Page("lessons/input_layer.py", title=t("app.il"), icon=":material/stacks:"),
    st.Page("lessons/rotary.py", title=t("app.rp"), icon=":material/autorenew:"),
]
page = st.navigation(pages)

choice = device_choice()
st.sidebar.caption(t("app.device", device=choice.device.type))
if choice.warning:
    st.sidebar.warning(problem(choice.warning))
page.run()
