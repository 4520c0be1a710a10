"""Transformer Embedding Lab: routes to the pages; the sidebar holds the language, presenter mode, the class and the
device."""

from pathlib import Path

import streamlit as st

from lessons import declared, every_declared, link_kinds
from ui.address import keep_history, too_long_notice
from ui.device import device_choice
from ui.i18n import LANG_KEY, LANGUAGES, problem, shown, t
from ui.link import ASKED, IN_LINK, check_link, read_link, translated_choice
from ui.live_class import live_class
from ui.pages import asked_path, lesson, navigation
from ui.presenter import CSS, PRESENT_KEY, presenting
from ui.resources import import_libraries
from ui.sessions import settle_heap, start_reaper
from ui.share_link import share_file, share_link
from ui.tables import keyboard_scrolling

THEME_CSS = Path(__file__).with_name("ui") / "theme.css"  # what .streamlit/config.toml's theme cannot say

st.set_page_config(page_title="Transformer Embedding Lab", page_icon="🧭", layout="wide")
st.html(THEME_CSS)
import_libraries()  # once per process, before any page's imports: first visits at once must not race them
start_reaper()  # once per process: closed tabs' sessions are let go of when Streamlit's reconnect window ends
page, key = navigation()
kinds = link_kinds(lesson(key).folder)  # the page's declared settings (lessons/<folder>/settings.py)
read_link(key, kinds)
first_run = ASKED in st.session_state  # until check_link, at the end of this run, has read the link

translated_choice(
    st.sidebar.segmented_control,
    "Language / 语言",
    list(LANGUAGES),
    key=LANG_KEY,
    format_func=LANGUAGES.get,
    required=True,
)
st.sidebar.toggle(t("app.present"), key=PRESENT_KEY, help=t("app.present_help"), **IN_LINK)
if presenting():
    st.html(CSS)
# Presenter mode gives the projector's width to the page: the sidebar collapsed (its button in the top left corner
# brings it back, and a learner's own choice to open or close it is kept), open again on a wide screen without it.
st.set_page_config(initial_sidebar_state="collapsed" if presenting() else "auto")
share = share_link()
too_long = keep_history()
keyboard_scrolling()

notices = st.container()  # above the page: what of the link was not used
too_long_notice(notices, too_long)
if first_run and (path := asked_path(page)) is not None:
    notices.warning(t("app.page_unknown", path=shown(path), page=page.title))
live_class(lesson(key).folder, every_declared(), notices)  # the sidebar's class control, a learner's bar above the page
choice = device_choice()
st.sidebar.caption(t("app.device", device=choice.device.type))
if choice.warning:
    st.sidebar.warning(problem(choice.warning))
page.run()
check_link(notices, key, kinds)
share_file(share, declared(lesson(key).folder))  # after the run: the texts it left out of the address
settle_heap(key)  # once per page and process: what it loaded is kept out of the collector's way
