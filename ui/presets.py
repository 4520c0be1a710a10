"""Ready-made values beside a text box: a row of pills that fills the box."""

from __future__ import annotations

import streamlit as st


def take_pick(pick_key: str, target_key: str) -> None:
    """Callback for preset pills beside a text box: copy the picked value into the box, then clear the pick."""
    if st.session_state[pick_key]:
        st.session_state[target_key] = st.session_state[pick_key]
    st.session_state[pick_key] = None
