"""MiniLM's whole encoder and its runs, shared by every learner of the "Inside a real Transformer" page.

The weights are loaded once per server process (the input layer's tables shared with ui.resources.minilm_input);
a sentence's runs are kept by reference, so a move that reads one head copies nothing large.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import minilm, probes
from ui.device import device
from ui.resources import minilm_input


@st.cache_resource(show_spinner=False)  # the encoder's 43 MB beside the input layer's tables
def minilm_model() -> minilm.MiniLM:
    """all-MiniLM-L6-v2's encoder on the server's device. Raises PretrainedMissing without its package."""
    return minilm.load_minilm(device=device(), input_layer=minilm_input())


# A run holds every head's attention, 6 x 12 x n x n: kept for a few sentences, for a while.
@st.cache_resource(max_entries=8, ttl=900, show_spinner=False)
def learned_run(sentence: str, pair: str) -> tuple[minilm.Encoded, minilm.Forward]:
    """The sentence (and its pair, "" for none) through MiniLM with its learned positions. Raises Problem."""
    model = minilm_model()
    encoded = minilm.encode(model, sentence, pair or None)
    return encoded, minilm.forward(model, encoded.ids, encoded.type_ids)


@st.cache_resource(max_entries=4, ttl=900, show_spinner=False)
def positions_taken(sentence: str, pair: str, seed: int) -> probes.PositionsTaken:
    """The sentence with learned positions, none, sinusoidal ones, and shuffled. Raises Problem."""
    model = minilm_model()
    return probes.take_positions_away(model, minilm.encode(model, sentence, pair or None), seed)


@st.cache_resource(show_spinner=False)
def shipped_profile() -> tuple[np.ndarray, list[probes.NamedHead]]:
    """Every head's mean attention by offset over the shipped sentences, and the heads the rule names."""
    profile = probes.offset_profile(probes.run_sentences(minilm_model(), probes.read_sentences()))
    return profile.numpy(), probes.positional_heads(profile)
