"""Transformer Embedding Lab: routes to the pages; the sidebar holds the language, presenter mode and the device."""

import streamlit as st

from ui import LESSONS, device_choice, history_navigation, keep_settings
from ui.exercises import PRESENT_KEY, presenting
from ui.i18n import LANG_KEY, LANGUAGES, problem, t
from ui.sessions import start_reaper

# Presenter mode: everything in the main column a third larger, charts included, for a projector.
PRESENTER_CSS = """<style>
[data-testid="stMainBlockContainer"] { zoom: 1.3; max-width: none; }
</style>"""

st.set_page_config(page_title="Transformer Embedding Lab", page_icon="🧭", layout="wide")
start_reaper()  # once per process: closed tabs' sessions are let go of when Streamlit's reconnect window ends
back = history_navigation()  # the browser's Back or Forward: its address says the language and presenter mode
if LANG_KEY not in st.session_state or back:  # a link's ?lang=zh opens the app in Chinese
    st.session_state[LANG_KEY] = st.query_params.get(LANG_KEY) if st.query_params.get(LANG_KEY) in LANGUAGES else "en"
st.sidebar.segmented_control("Language / 语言", list(LANGUAGES), format_func=LANGUAGES.get, key=LANG_KEY, required=True)
if st.session_state[LANG_KEY] == "en":
    st.query_params.pop(LANG_KEY, None)
else:
    st.query_params[LANG_KEY] = st.session_state[LANG_KEY]
if PRESENT_KEY not in st.session_state or back:  # ?present=true opens the link in presenter mode
    st.session_state[PRESENT_KEY] = st.query_params.get(PRESENT_KEY) == "true"
st.sidebar.toggle(t("app.present"), key=PRESENT_KEY, help=t("app.present_help"))
if presenting():
    st.query_params[PRESENT_KEY] = "true"
    st.html(PRESENTER_CSS)
else:
    st.query_params.pop(PRESENT_KEY, None)

pages = [
    st.Page("lessons/overview.py", title=t("app.ov"), icon=":material/route:", default=True),
    *(st.Page(script, title=t(f"app.{key}"), icon=icon) for key, (script, icon) in LESSONS.items()),
]
page = st.navigation(pages)
keep_settings(page.url_path)

choice = device_choice()
st.sidebar.caption(t("app.device", device=choice.device.type))
if choice.warning:
    st.sidebar.warning(problem(choice.warning))
page.run()
