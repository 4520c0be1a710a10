"""A live class, in the sidebar of every page (core.classroom keeps it): the leader starts a class and shows the
room a view; learners join by the link, its QR code or the code, see a bar naming the leader's view with a button
to go there, and can follow the leader to each new view.

Who leads is whoever holds the class's secret: this session's state, and the browser's own tab (live_class.js keeps
it in sessionStorage, so that a leader whose replica died leads again from the other one), or the leader link. A
learner is a random id the browser keeps (localStorage), so that a learner moved to another replica is the same
learner, with the same answers. The class's code is kept in the link (?class=CODE): a reload or a new replica joins
again. A learner's page changes only by their "Go there" or while they follow.

live_class.js asks serve.py's `/_class/<code>/view` every EVERY_MS for the view's version and the answers revealed
(nothing else: no secret, no answer), and reruns the page only when one changed, not at each poll. A store that
cannot be reached (core.classroom.StoreDown) leaves the lab as it is, with the class said to be unavailable; the
next answer of the endpoint reruns the page, and the class resumes.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import segno
import streamlit as st

from core.classroom import ClassGone, ClassStore, StoreDown, View, normal_code, process_store
from core.problems import Problem
from ui.class_view import AT, FOLLOW, LEAD, PARAM, described, go, link_of
from ui.i18n import problem, shown, t
from ui.link import IN_LINK
from ui.pages import LESSONS, OVERVIEW
from ui.presenter import presenting
from ui.settings import Settings

CLASS = "_class"  # session state: the class this session is in, a Member
LEARNER = "_class_learner"  # session state: this learner's id, until the browser names the one it keeps
SAID = "_class_said"  # session state: a message about the class, shown on the next run
EVERY_MS = 2000  # how often a page in a class asks for the view's version

_component = st.components.v2.component("live_class", js=Path(__file__).with_name("live_class.js").read_text())


@dataclass(frozen=True)
class Member:
    """This session in a class: its code, its role, the learner's id (a leader has one too), the leader's secret."""

    code: str
    learner: str
    secret: str | None = None
    joined: bool = False  # the store has the learner (False while the store is down)

    @property
    def leads(self) -> bool:
        return self.secret is not None


def member() -> Member | None:
    """The class this session is in, or None."""
    return st.session_state.get(CLASS)


def store() -> ClassStore:
    return process_store()


def learner_id() -> str:
    return st.session_state.setdefault(LEARNER, secrets.token_urlsafe(16))


def say(text: str, bad: bool = True) -> None:
    st.session_state[SAID] = (text, bad)


def arrive() -> None:
    """A link's ?class= (join as a learner) and ?lead= (lead with the class's secret), read on any run."""
    asked, lead = st.query_params.get(PARAM), st.query_params.get(LEAD)
    st.query_params.pop(LEAD, None)  # never left in the address bar a projector shows
    was = member()
    if asked is None or (was is not None and was.code == asked and (lead is None or was.leads)):
        return
    try:
        code = normal_code(asked)
    except Problem as err:
        say(problem(err))
        st.query_params.pop(PARAM, None)
        return
    try:
        if lead is not None:
            if not store().is_leader(code, lead):
                say(t("problems.class_not_leader", code=shown(code)))
                st.query_params.pop(PARAM, None)  # a wrong leader link joins nothing, on this run or the next
                return
            st.session_state[CLASS] = Member(code, learner_id(), lead, joined=True)
        else:
            st.session_state[CLASS] = Member(code, learner_id())
    except StoreDown:
        st.session_state[CLASS] = Member(code, learner_id(), lead)
    except Problem as err:
        say(problem(err))
        st.query_params.pop(PARAM, None)


def start() -> None:
    try:
        code, secret = store().start()
    except Problem as err:
        say(problem(err))
        return
    st.session_state[CLASS] = Member(code, learner_id(), secret, joined=True)
    st.session_state.pop(AT, None)


def join() -> None:
    typed = st.session_state.get("cls_code", "")
    try:
        code = normal_code(typed)
        store().join(code, learner_id())
    except Problem as err:
        say(problem(err))
        return
    st.session_state[CLASS] = Member(code, learner_id(), joined=True)
    st.session_state.pop(AT, None)


def leave() -> None:
    was = st.session_state.pop(CLASS, None)
    st.session_state.pop(AT, None)
    st.query_params.pop(PARAM, None)
    if was is not None and not was.leads:
        try:
            store().leave(was.code, was.learner)
        except Problem:
            pass  # gone or down: the learner is out of this session's class either way


def qr_svg(text: str) -> str:
    """A QR code of `text` as an <svg> (segno), black on white (as scanners read best, in either theme)."""
    return segno.make(text, error="m").svg_inline(scale=8, border=3, dark="#000", light="#fff")


def join_links(code: str, secret: str | None) -> tuple[str, str]:
    """The class's join link and its leader link, on the address the leader's browser uses."""
    parts = urlsplit(st.context.url or "")
    base = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    prefix = (st.get_option("server.baseUrlPath") or "").strip("/")
    root = base + (f"/{prefix}" if prefix else "") + "/"
    return f"{root}?{PARAM}={code}", f"{root}?{PARAM}={code}&{LEAD}={quote(secret or '', safe='')}"


@st.dialog(" ", width="large")
def join_code_dialog(code: str, url: str) -> None:
    """The class's code and QR code, large (on a projector in presenter mode)."""
    size = "min(70vh, 32rem)" if presenting() else "18rem"
    st.markdown(t("cls.join_big", code=code))
    svg = qr_svg(url).replace("<svg ", '<svg width="100%" height="100%" ', 1)
    st.html(
        f'<div role="img" aria-label="{t("cls.qr_label")}" style="width:{size};height:{size};margin:auto">{svg}</div>'
    )
    st.code(url, language=None, wrap_lines=True)


def live_class(folder: str, settings: Mapping[str, Settings], where) -> None:
    """The sidebar's class control, and for a learner the bar naming the leader's view in `where` (above the page).

    Args:
        folder: this page's folder (the view "Show this to the class" publishes).
        settings: every page's declared settings, by folder (the bar names a view's settings by their labels).
        where: the container above the page.
    """
    arrive()
    box = st.sidebar.container(border=True)
    if (said := st.session_state.pop(SAID, None)) is not None:
        (box.warning if said[1] else box.success)(said[0])
    now = member()
    if now is None:
        with box.popover(t("cls.class"), icon=":material/groups:", use_container_width=True):
            st.button(t("cls.start"), key="cls_start", on_click=start, use_container_width=True)
            st.text_input(t("cls.code"), key="cls_code", placeholder="K7M2QX", max_chars=20)
            st.button(t("cls.join"), key="cls_join", on_click=join)
        poll(None, "none")
        return
    if st.query_params.get(PARAM) != now.code:
        st.query_params[PARAM] = now.code
    seen = "down"
    try:
        if not now.joined:
            store().join(now.code, now.learner)
            st.session_state[CLASS] = now = Member(now.code, now.learner, now.secret, joined=True)
        view = store().view(now.code)
        joined = store().learners(now.code)
        seen = f"{view.version}.{len(store().revealed(now.code))}" + (f".{joined}" if now.leads else "")
    except StoreDown:
        box.warning(t("problems.class_store_down"))
        box.button(t("cls.leave"), key="cls_leave", on_click=leave)
        poll(now, seen)
        return
    except ClassGone as err:
        leave()
        say(problem(err))
        st.rerun()
    if now.leads:
        leader_control(box, now, folder, settings.get(folder), joined)
    else:
        learner_control(box, now, view, settings, where, folder)
    poll(now, seen)


def leader_control(box, now: Member, folder: str, declared: Settings | None, joined: int) -> None:
    box.markdown(t("cls.leading", code=now.code, n=joined))
    if box.button(t("cls.show"), key="cls_show", type="primary", icon=":material/cast:", use_container_width=True):
        page = next(x.key for x in (OVERVIEW, *LESSONS.values()) if x.folder == folder)
        try:
            store().publish(now.code, now.secret or "", page, link_of(folder, declared))
            box.success(t("cls.shown"))
        except Problem as err:
            box.warning(problem(err))
    url, lead_url = join_links(now.code, now.secret)
    if box.button(t("cls.join_code"), key="cls_qr", icon=":material/qr_code_2:", use_container_width=True):
        join_code_dialog(now.code, url)
    with box.popover(t("cls.leader_link"), icon=":material/key:", use_container_width=True):
        st.caption(t("cls.leader_link_help"))
        st.code(lead_url, language=None, wrap_lines=True)
    box.button(t("cls.end"), key="cls_leave", on_click=leave)


def learner_control(box, now: Member, view: View, settings: Mapping[str, Settings], where, folder: str) -> None:
    box.markdown(t("cls.in_class", code=now.code))
    following = box.toggle(
        t("cls.follow"), key=FOLLOW, help=t("cls.follow_help"), on_change=followed, **IN_LINK
    )  # in the link: a reload, or another replica after a crash, follows on
    box.button(t("cls.leave"), key="cls_leave", on_click=leave)
    if view.version == 0:
        where.info(t("cls.waiting"), icon=":material/groups:")
        return
    here = view.link == link_of(folder, settings.get(folder))
    target = settings.get(view.link.partition("?")[0].strip("/"))
    if following and st.session_state.get(AT, 0) < view.version and not here:
        go(view, target, folder)
    if here:
        st.session_state[AT] = view.version
    bar = where.container(border=True)
    c1, c2 = bar.columns([4, 1], vertical_alignment="center")
    c1.markdown(t("cls.showing", view=described(view, settings)))
    if c2.button(t("cls.go"), key="cls_go", disabled=here, icon=":material/arrow_forward:"):
        go(view, target, folder)


def followed() -> None:
    """The follow switch turned on: to the view shown now, too, not only the next one."""
    if st.session_state.get(FOLLOW):
        st.session_state[AT] = 0


def poll(now: Member | None, seen: str) -> None:
    """live_class.js: asks for the view's version every EVERY_MS while in a class and reruns the page when it is
    not `seen`; reports the learner id and the leader secret the browser keeps, for a session that lacks them."""
    prefix = (st.get_option("server.baseUrlPath") or "").strip("/")
    url = None if now is None else ("/" + prefix if prefix else "") + f"/_class/{now.code}/view"
    data = dict(url=url, seen=seen, every=EVERY_MS, learner=learner_id(), code=now and now.code,
                secret=now and now.secret, leads=bool(now and now.leads))  # fmt: skip
    result = _component(
        data=data, key="live_class", on_learner_change=lambda: None, on_lead_change=lambda: None,
        on_changed_change=lambda: None,
    )  # fmt: skip
    kept = getattr(result, "learner", None)
    if now is None or not isinstance(kept, str) or not 0 < len(kept) <= 64:
        return
    lead = getattr(result, "lead", None)
    try:
        if isinstance(lead, str) and not now.leads and store().is_leader(now.code, lead):
            store().leave(now.code, now.learner)
            st.session_state[CLASS] = Member(now.code, kept, lead, joined=True)
            st.session_state[LEARNER] = kept
            st.rerun()
        if kept != now.learner:  # a new session of a browser that was in the class: the browser's learner
            if not now.leads:
                store().leave(now.code, now.learner)
                store().join(now.code, kept)
            st.session_state[CLASS] = Member(now.code, kept, now.secret, joined=True)
            st.session_state[LEARNER] = kept
            st.rerun()
    except Problem:
        return  # down or gone: the next run tries again
