"""The sidebar's "Share this view" control: the page's address as the browser has it now, and a copy button.

The address is read in the browser, each time the control opens. A server-written link would show the view of
the last full run: a slider inside a fragment changes the URL (ui.Link.fragment) but does not rerun the sidebar.
The browser's address is also the one learners can reach when the app runs behind a proxy.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.i18n import t

CSS = """
.share-link { display: flex; gap: 0.5rem; align-items: flex-start; }
.share-link textarea {
  flex: 1; min-width: 0; padding: 0.35rem 0.5rem; font: 0.8rem var(--st-code-font, monospace);
  resize: none; word-break: break-all;
  color: var(--st-text-color); background: var(--st-secondary-background-color);
  border: 1px solid var(--st-border-color); border-radius: var(--st-base-radius, 0.5rem);
}
.share-link button {
  padding: 0.35rem 0.75rem; font: inherit; cursor: pointer; color: var(--st-text-color);
  background: var(--st-background-color); border: 1px solid var(--st-border-color);
  border-radius: var(--st-button-radius, 0.5rem);
}
.share-link button:hover { border-color: var(--st-primary-color); color: var(--st-primary-color); }
"""

_component = st.components.v2.component(
    "share_link",
    html='<div class="share-link"><textarea readonly rows="4"></textarea><button></button></div>',
    css=CSS,
    js=Path(__file__).with_name("share_link.js").read_text(),
)


def share_link() -> None:
    """The sidebar's popover with this view's link and a button that copies it."""
    with st.sidebar.popover(t("ui.share"), icon=":material/link:"):
        _component(data=dict(label=t("ui.share"), copy=t("ui.copy"), copied=t("ui.copied")), key="share_link")
        st.caption(t("ui.share_help"))
