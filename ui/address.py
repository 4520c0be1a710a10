"""What the browser's address can hold: a change a learner makes is a new history entry, a link Streamlit does not
read at all is named, and every address the lab writes can be opened (issue 55).

Every address is written through history.js (`keep_history`). Streamlit drops a whole link past
CLIENT_STATE_QUERY_STRING_MAX_FIELDS parameters or CLIENT_STATE_QUERY_STRING_MAX_LENGTH characters with a line in the
server's log only: the browser reports such an address and the page names it (`too_long_notice`,
tests/browser/test_across_pages.py). An address past LINK_MOST characters, which common servers refuse, leaves out its
long texts (`keep_openable`); the box keeps them, Back to such an entry brings them back (history.js keeps them in the
entry's state), and "Share this view" offers the view as a file (ui.share_link).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.query_params import (
    CLIENT_STATE_QUERY_STRING_MAX_FIELDS,
    CLIENT_STATE_QUERY_STRING_MAX_LENGTH,
)

from ui.i18n import t

LINK_MOST = 8_000  # characters of an address that common servers and proxies accept (the lab's own: ~127 kB)
TEXT_MOST = 2_000  # a text setting's characters in the address, encoded: three boxes and the rest under LINK_MOST
LEFT_OUT = "_link_left_out"  # {key: characters}: the texts this session holds that the address leaves out

HISTORY_JS = Path(__file__).with_name("history.js").read_text()
_history = st.components.v2.component("view_history", js=HISTORY_JS)


ADDRESS_ROOM = 100  # an address's characters before its query string: the scheme, a host and port, the page


def address_chars(values: Mapping[str, str]) -> int:
    """About how long the browser's address is with this run's link and `values` in it (each value encoded, as
    history.js measures it, less the host's exact length)."""
    query = {name: st.query_params.get_all(name) for name in st.query_params} | {k: [v] for k, v in values.items()}
    return ADDRESS_ROOM + sum(len(quote(k)) + 2 + len(quote(v, safe="")) for k, vs in query.items() for v in vs)


def keep_openable(key: str, value: str) -> None:
    """After a text box bound to the link is drawn: note a text longer than TEXT_MOST once encoded, which the browser
    leaves out of any address past LINK_MOST (history.js, through which every address is written: Streamlit's
    binding writes a box's text from the browser), so that every address the lab writes
    can be opened (issue 55: 188,947 characters got HTTP 400 on a reload); the box keeps it, and LEFT_OUT says so
    to "Share this view", which offers the view's settings as a file instead (ui.share_link)."""
    left = st.session_state.setdefault(LEFT_OUT, {})
    was = key in left
    # as history.js: a text is left out only of an address past LINK_MOST (the query parameter stays: Streamlit
    # forbids taking out a bound one)
    if len(quote(value, safe="")) > TEXT_MOST and address_chars({key: value}) > LINK_MOST:
        left[key] = len(value)
    else:
        left.pop(key, None)
    if was != (key in left) and getattr(get_script_run_ctx(), "fragment_ids_this_run", None):  # a fragment's run
        st.rerun(scope="app")  # a box in a fragment: the sidebar's "Share this view" is drawn by a full run


LIMITS = dict(  # what history.js is told of addresses
    fields=CLIENT_STATE_QUERY_STRING_MAX_FIELDS,
    chars=CLIENT_STATE_QUERY_STRING_MAX_LENGTH,
    most=LINK_MOST,  # and an address past this leaves its long texts out (history.js, keep_openable)
    text=TEXT_MOST,
)


def history_script() -> str:
    """history.js as an index.html script that installs it before Streamlit's own (serve.py, `FirstInPage`): the
    learner's first click on a page is then a history entry already."""
    return f'<script type="module">{HISTORY_JS}\ninstall({json.dumps(LIMITS)});</script>'


def keep_history() -> dict | None:
    """Make each change a learner makes a new entry of the browser's history (see history.js; installed from
    index.html first where serve.py serves the lab, `history_script`); and return
    {"fields": n, "chars": n} while the browser's address holds a link past what Streamlit reads (more than
    CLIENT_STATE_QUERY_STRING_MAX_FIELDS parameters or CLIENT_STATE_QUERY_STRING_MAX_LENGTH characters: Streamlit
    drops the whole query string and says so in the server's log only), else None (`too_long_notice`)."""
    result = _history(key="view_history", data=LIMITS, on_too_long_change=lambda: None)
    return getattr(result, "too_long", None)


def too_long_notice(where, too_long: dict | None) -> None:
    """The notice for a link Streamlit did not read at all (keep_history's result): how large it is, the limits."""
    if too_long:
        where.warning(
            t(
                "ui.link_too_long",
                fields=f"{too_long['fields']:,}",
                chars=f"{too_long['chars']:,}",
                most=f"{CLIENT_STATE_QUERY_STRING_MAX_FIELDS:,}",
                most_chars=f"{CLIENT_STATE_QUERY_STRING_MAX_LENGTH:,}",
            )
        )
