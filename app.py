"""Transformer Embedding Lab: routes to the pages; the sidebar holds the language, presenter mode and the device."""

from pathlib import Path

import streamlit as st

from ui.device import device_choice
from ui.i18n import LANG_KEY, LANGUAGES, problem, shown, t
from ui.link import ASKED, IN_LINK, back_or_forward, check_link, keep_history, upgrade_link
from ui.pages import asked_path, navigation, page_script
from ui.presenter import CSS, PRESENT_KEY, presenting
from ui.resources import import_libraries
from ui.sessions import start_reaper
from ui.share_link import share_link

THEME_CSS = Path(__file__).with_name("ui") / "theme.css"  # what .streamlit/config.toml's theme cannot say

st.set_page_config(page_title="Transformer Embedding Lab", page_icon="🧭", layout="wide")
st.html(THEME_CSS)
import_libraries()  # once per process, before any page's imports: first visits at once must not race them
start_reaper()  # once per process: closed tabs' sessions are let go of when Streamlit's reconnect window ends
page, key = navigation()
upgrade_link(key)
first_run = ASKED in st.session_state  # until check_link, at the end of this run, has read the link

# The language is not bound to the link by Streamlit: a bound control writes its label (中文), not its value (zh),
# into the address. So a link's ?lang=zh is read here on the first run and on Back or Forward, and written back on
# every run (tests/app/test_i18n.py: the link keeps ?lang=zh, and Back brings the language back).
asked_lang = st.query_params.get(LANG_KEY)
if LANG_KEY not in st.session_state or back_or_forward():
    st.session_state[LANG_KEY] = asked_lang if asked_lang in LANGUAGES else "en"
st.sidebar.segmented_control("Language / 语言", list(LANGUAGES), format_func=LANGUAGES.get, key=LANG_KEY, required=True)
if st.session_state[LANG_KEY] == "en":
    st.query_params.pop(LANG_KEY, None)
else:
    st.query_params[LANG_KEY] = st.session_state[LANG_KEY]
st.sidebar.toggle(t("app.present"), key=PRESENT_KEY, help=t("app.present_help"), **IN_LINK)
if presenting():
    st.html(CSS)
share_link()
keep_history()

notices = st.container()  # above the page: what of the link was not used
if first_run and asked_lang is not None and asked_lang not in LANGUAGES:
    notices.warning(t("app.lang_unknown", lang=shown(asked_lang), languages=", ".join(LANGUAGES)))
if first_run and (path := asked_path(page)) is not None:
    notices.warning(t("app.page_unknown", path=shown(path), page=page.title))
choice = device_choice()
st.sidebar.caption(t("app.device", device=choice.device.type))
if choice.warning:
    st.sidebar.warning(problem(choice.warning))
page.run()
check_link(notices, page_script(key))
