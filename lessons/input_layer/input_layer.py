"""The input layer, stage by stage: token x sqrt(d_model) + position + segment -> LayerNorm -> dropout."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
import torch

from core import claims, pretrained
from core import embeddings as emb
from core.embeddings import Tokens
from core.glove import VectorsError
from core.positional import sinusoidal_encoding
from figures.input_layer import stage_figures
from figures.tokens import visible
from figures.training import lines_figure
from lessons.input_layer import handed
from lessons.input_layer.handoff import read
from lessons.input_layer.settings import MOST_CHARS, SETTINGS
from ui import live_chart
from ui.cache import cached
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.presenter import presented
from ui.resources import minilm_input
from ui.tables import downloads, table
from ui.tokens import unknown_notice
from ui.vectors import bundled_vectors

SIZES = [8, 16, 32, 64, 128, 256, 512, 1024]  # the d_models of section 2
SQRT_AT = 512  # the d_model section 2's notice reads the plot at (the paper's)


def key_text(name: str) -> str:
    """A name core uses as a dict key ("+ position", "input embedding"), in the reader's language."""
    return t("il.k_" + "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_"))


def four_decimals(values: torch.Tensor, rows: list[str], name: str = "token") -> pd.DataFrame:
    return pd.DataFrame(values.cpu().numpy(), index=pd.Index(rows, name=name)).round(4)


def warn_cut(key: str, tokens: list[str], max_len: int) -> None:
    """The sentence is longer than the table: say where it is cut and what is left out."""
    st.warning(t(key, n=len(tokens), max_len=max_len, last=tokens[max_len - 1], dropped=", ".join(tokens[max_len:])))


def moments_said(moments: claims.Moments) -> str:
    """The LayerNorm heatmap's row moments in words: one variance when its least and largest read the same at the
    digits shown (a range from 1 to 1 says nothing)."""
    mean, lo, hi = f"{moments.largest_mean:.2g}", f"{moments.least_var:.3g}", f"{moments.largest_var:.3g}"
    if lo == hi:
        return t("il.stages_measured_one", mean=mean, var=lo)
    return t("il.stages_measured", mean=mean, lo=lo, hi=hi)


@cached(max_entries=4, copy=True)
def norms(init: str) -> dict[str, list[float]]:
    return emb.norms_against_d_model(SIZES, init, device=device())


@cached(max_entries=1, copy=True)
def padding_demo() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    batch = emb.pad_batch([[1, 2, 3], [4, 5]])
    return batch, *emb.padding_gradients(batch, vocab_size=10, d_model=3, device=device())


@cached(max_entries=64, copy=True)
def layer_stages(
    sentences: tuple[str, ...], wv, glove: bool, cfg: emb.LayerConfig
) -> tuple[list[Tokens], dict[str, np.ndarray]]:
    """Each sentence's tokens, and the stages of the input layer in eval mode for their first cfg.max_len, {name:
    (tokens, d)}: the layer over GloVe's rows (`glove`, the vectors `wv`) or a random table."""
    return run_layer(sentences, wv, glove, cfg, training=False)


def run_layer(sentences, wv, glove: bool, cfg: emb.LayerConfig, training: bool):
    """layer_stages, in training mode too."""
    toks, stages = emb.input_stages(sentences, wv if glove else None, cfg, training=training, device=device())
    return toks, {name: values.cpu().numpy() for name, values in stages.items()}


st.title(t("il.title"))
st.markdown(t("il.intro"))
handed.apply_handoff()  # "Use these tokens" on the text-to-tokens page: its sentence, cut and table, once

# --- Settings ---------------------------------------------------------------------------------------
# A bound radio would put its option's label, in the reader's language, into the link, so the choices shown
# translated are kept in the link by hand (ui.link.translated_choice: ?il_mode=random in every language); English
# shows the codes, with the tables' names under them. The sentences are typed into `typed` by section
# 1's fragment below, so that a sentence reruns that section alone (the browser writes the URL); the table and the
# layer's settings, moved far less, rerun the page, which hands them to the fragment. Sections 2 and 5 have their own
# controls and are fragments too; sections 3 and 4 have none. The cut handed on (`il_from`, empty for the page's own
# words) is a box of its own, in the link: it decides which table reads the tokens (handed.table_in_use).
captions = [t(f"il.mode_{m}") for m in SETTINGS["il_mode"].options]
mode = SETTINGS["il_mode"].draw(st, captions=captions, horizontal=True)
typed = st.container()
c1, c2, c3, c4 = st.columns([1.25, 1, 1, 1.25])  # toggles cut their labels rather than wrap them
training_slot = c4.container()  # the toggle above the cut's box; drawn once the table is known
handed_from = SETTINGS["il_from"].draw(c4).strip()
table_in_use = handed.table_in_use(mode, read(handed_from)) if handed_from else mode
own = table_in_use == "minilm"  # the real model has its own scale, positions and dropout
scale = SETTINGS["il_scale"].draw(c1, disabled=own)
position = SETTINGS["il_position"].draw(c1, disabled=own)
d_model = SETTINGS["il_d_model"].draw(c2, disabled=table_in_use != "random")  # GloVe's width is its own, MiniLM's too
max_len = int(SETTINGS["il_max_len"].draw(c2))
dropout = SETTINGS["il_dropout"].draw(c3, disabled=own)
training = SETTINGS["il_train"].draw(training_slot, disabled=own)
layer = emb.LayerConfig(d_model=d_model, max_len=max_len, position=position, scale=scale, dropout=dropout)


def glove_or_none(d_model: int):
    """GloVe's vectors, or None (and a warning) without their package; a notice that they set d_model."""
    try:
        wv = bundled_vectors()
    except VectorsError as err:
        st.warning(t("il.glove_missing", problem=problem(err)))
        return None
    if d_model != wv.dim:
        st.info(t("il.glove_dim", dim=wv.dim, d_model=d_model))
    return wv


@dataclass(frozen=True)
class Rows:
    """What section 1 shows of the tokens the layer reads (the first max_len): each token, its id and segment, every
    stage's values {name: (tokens, d)}, and the code that computed them."""

    tokens: list[str]
    ids: list[int]
    segments: list[int]
    stages: dict[str, np.ndarray]
    code: tuple[Callable[..., Any], ...]


def typed_sentences() -> tuple[str, str]:
    """The sentence and its pair, in the boxes above the layer's settings (`typed`), each read up to MOST_CHARS."""
    c1, c2 = typed.columns(2)
    sentence = SETTINGS["il_sentence"].draw(c1)
    pair = SETTINGS["il_pair"].draw(c2)
    if (longest := max(len(sentence), len(pair))) > MOST_CHARS:  # memory per run bounded: the box keeps it all
        st.warning(t("il.typed_cut", n=f"{longest:,}", most=f"{MOST_CHARS:,}"))
    return sentence[:MOST_CHARS], pair[:MOST_CHARS]


@st.fragment
def stages_section(mode: str, layer: emb.LayerConfig, training: bool, cut: str) -> None:
    """Section 1, tokens and stages: the sentences' tokens (the page's own words, MiniLM's pieces, or a cut handed
    on) through the input layer, stage by stage."""
    sentence, pair = typed_sentences()
    sentences = (sentence, pair) if pair.strip() else (sentence,)
    st.header(t("il.h_stages"))
    if not sentence.strip():
        st.error(t("il.no_sentence"))
        return
    given = handed.handed_tokens(cut, sentences)  # the box: which cut the tokens come from, and the way back
    table_in_use = handed.table_in_use(mode, given.handed if given else None)
    if given is not None and not any(given.cuts):  # nothing but what the cut drops (zero-width characters)
        st.warning(t("il.handed_empty", cut=t(f"tt.cut_{given.handed.name}")))
        return
    if given is not None and table_in_use != "minilm":  # MiniLM reads the WordPiece pieces handed on as below
        rows = handed_rows(given, mode, table_in_use, layer, training)
    elif mode == "minilm":
        if (found := minilm_rows(sentence, pair, layer.max_len)) is None:
            return
        rows = found
    else:
        rows = own_rows(sentences, mode, layer, training)
    stages_shown(rows, table_in_use, training)


def handed_rows(
    given: handed.HandedTokens, mode: str, table_in_use: str, layer: emb.LayerConfig, training: bool
) -> Rows:
    """A cut handed on, through the layer over a random table as large as its vocabulary (GloVe's for words)."""
    if table_in_use != mode:
        st.info(t("il.handed_other_table", table=t(f"il.mode_{mode}"), cut=t(f"tt.cut_{given.handed.name}")))
    wv = glove_or_none(layer.d_model) if table_in_use == "glove" else None
    if training:  # dropout draws: not cached
        every, ids, segments, stages, missing = handed.run_handed(given, wv, layer, training=True)
    else:
        every, ids, segments, stages, missing = handed.handed_stages(given, wv, layer)
    every = [visible(tok) for tok in every]  # a space as ␣, as the chips show it: in the list cut, the rows
    if missing and wv is not None:
        st.warning(t("il.handed_unknown", words=", ".join(missing), row=f"{len(wv):,}"))
    if len(every) > layer.max_len:
        warn_cut("il.cut", every, layer.max_len)
    if wv is None:
        rows, d_model = given.vocabulary, layer.d_model
        st.caption(t("il.handed_random", rows=f"{rows:,}", d=d_model, values=f"{rows * d_model:,}",
                     k=len(set(ids))))  # fmt: skip
    else:
        st.caption(t("il.handed_glove", rows=f"{len(wv):,}"))
    return Rows(every[: layer.max_len], ids, segments, stages, (emb.table_stages, emb.random_rows))


def minilm_rows(sentence: str, pair: str, max_len: int) -> Rows | None:
    """The sentences through MiniLM's own input layer, its WordPiece pieces; None (and why) without its package."""
    try:
        real = minilm_input()
    except pretrained.PretrainedMissing as err:
        st.info(t("il.minilm_missing", problem=problem(err)))
        return None
    st.info(t("il.minilm_dim", dim=real.word.size(1)))
    tokens, id_tensor, types = real.encode(sentence, pair or None)
    unknown_notice(real.tokenizer, sentence, pair)
    if len(id_tensor) > max_len:
        warn_cut("il.cut_wordpiece", tokens, max_len)
        tokens, id_tensor, types = tokens[:max_len], id_tensor[:max_len], types[:max_len]
    stages = {name: values.detach().cpu().numpy() for name, values in real.stages(id_tensor, types).items()}
    return Rows(tokens, id_tensor.tolist(), types.tolist(), stages, (pretrained.MiniLMInput.stages,))


def own_rows(sentences: tuple[str, ...], mode: str, layer: emb.LayerConfig, training: bool) -> Rows:
    """The sentences' words through the layer over GloVe's rows (without them: a random table) or a random table."""
    wv = glove_or_none(layer.d_model) if mode == "glove" else None
    glove = wv is not None
    if training:  # dropout draws: not cached
        toks, stages = run_layer(sentences, wv, glove, layer, training=True)
    else:
        toks, stages = layer_stages(sentences, wv, glove, layer)
    tokens = [w for tok in toks for w in tok.tokens]
    unknown = [w for tok in toks for w in tok.unknown]
    if unknown and len(unknown) == len(tokens):
        st.warning(t("il.all_unknown"))
    elif unknown:
        st.warning(t("il.some_unknown", words=", ".join(unknown)))
    if len(tokens) > layer.max_len:
        warn_cut("il.cut", tokens, layer.max_len)
    ids, segments = emb.ids_and_segments(toks, layer.max_len)
    return Rows(tokens[: layer.max_len], ids, segments, stages, (emb.TokenEmbedding, emb.InputLayer.forward))


def stages_shown(rows: Rows, table_in_use: str, training: bool) -> None:
    """The tokens' table, a heatmap per stage, their download, the code and what the LayerNorm's rows hold."""
    table(pd.DataFrame({"token": rows.tokens, "id": rows.ids, "segment": rows.segments}), "tokens", hide_index=True)
    if table_in_use == "minilm":
        st.caption(t("il.wordpiece_caption"))

    figures = partial(stage_figures, {key_text(name): v for name, v in rows.stages.items()}, rows.tokens,
                      t("pe.ax_dimension"))  # fmt: skip
    if training and table_in_use != "minilm":  # dropout draws anew on every run: not kept
        live_chart.charts(figures(), "il_stages")
    else:
        live_chart.cached_charts("il_stages", figures, cells=sum(v.size for v in rows.stages.values()))
    downloads("stages", array=np.stack(list(rows.stages.values())))  # (stage, token, d)
    show_code(*rows.code)
    moments = claims.row_moments(rows.stages["LayerNorm"].tolist())  # what the LayerNorm heatmap holds, token by token
    explain(
        r"x = \mathrm{Dropout}\big(\mathrm{LayerNorm}(E[\text{id}] \cdot \sqrt{d_{model}} + P_{pos} + S_{seg})\big)",
        moments_said(moments) + t("il.stages_notice"),
    )


stages_section(mode, layer, training, handed_from)

# --- 2. Why sqrt(d_model) -------------------------------------------------------------------------------
st.header(t("il.h_sqrt"))


@st.fragment
def sqrt_section() -> None:
    init = SETTINGS["il_init"].draw(st, horizontal=True)
    measured = norms(init)
    shown = {key_text(name): values for name, values in measured.items()}
    st.plotly_chart(
        presented(lines_figure(shown, t("il.norms_title"), "d_model", "‖v‖", x=SIZES, log_x=True, log_y=True))
    )
    at = {name: values[SIZES.index(SQRT_AT)] for name, values in measured.items()}  # the plot's values at d 512
    token, scaled, position = at["token"], at["token x sqrt(d_model)"], at["PE row"]
    explain(
        r"\lVert PE_{pos} \rVert = \sqrt{d/2},\qquad \lVert e \rVert \approx \sigma\sqrt{d}",
        t("il.sqrt_measured", d=SQRT_AT, init=t(f"il.option_{init}"), token=f"{token:.3g}", scaled=f"{scaled:.3g}",
          position=f"{position:.3g}", unscaled_ratio=f"{token / position:.2g}", scaled_ratio=f"{scaled / position:.2g}")
        + t("il.sqrt_notice"),
    )  # fmt: skip


sqrt_section()


def padding_section() -> None:
    """Section 3, padding: a padded batch, its vectors, and the gradient that never reaches the padding's row."""
    st.header(t("il.h_padding"))
    batch, vectors, grad = padding_demo()
    c1, c2, c3 = st.columns(3)
    batch_rows = pd.Index(["I love you", "He eats"], name="sentence")
    table(pd.DataFrame(batch.numpy(), index=batch_rows), "padded_batch", where=c1, array=batch)
    table(four_decimals(vectors[1], ["He", "eats", "<pad>"]), "padded_vectors", where=c2, array=vectors)
    rows = [t("il.row", i=i) for i in range(6)]
    table(four_decimals(grad[:6], rows, "id"), "padding_gradient", where=c3, array=grad)
    st.caption(t("il.padding_caption"))
    show_code(emb.padding_gradients)


def are_you_ok_section() -> None:
    """Section 4, "Are you OK ?": the words' vectors, the positions' rows, and their sum."""
    st.header(t("il.h_ok"))
    pe = sinusoidal_encoding(5, 4, device=device())
    c1, c2, c3 = st.columns(3)
    table(four_decimals(emb.ARE_YOU_OK, emb.ARE_YOU_OK_WORDS), "are_you_ok", where=c1, array=emb.ARE_YOU_OK)
    table(four_decimals(pe, [f"pos {i}" for i in range(5)], "position"), "are_you_ok_pe", where=c2, array=pe)
    ok_sum = emb.ARE_YOU_OK.to(pe) + pe[:4]
    table(four_decimals(ok_sum, emb.ARE_YOU_OK_WORDS), "are_you_ok_sum", where=c3, array=ok_sum)
    st.caption(t("il.ok_caption"))


padding_section()
are_you_ok_section()

# --- 5. Weight tying -----------------------------------------------------------------------------------
st.header(t("il.h_tying"))


@st.fragment
def tying_section() -> None:
    c1, c2 = st.columns(2)  # at first the base Transformer's sizes (lessons/input_layer/settings.py)
    vocab = int(SETTINGS["il_vocab"].draw(c1))
    tie_d = int(SETTINGS["il_tie_d"].draw(c2))
    counts = pd.DataFrame(emb.parameter_counts(vocab, tie_d))
    counts = counts.rename(index=key_text, columns=key_text).rename_axis("parameters")
    table(counts.map(lambda n: f"{n:,}"), "parameters", whole=counts)


tying_section()
explain(
    r"W_{out} = E^\top",
    t("il.tying_notice"),
)

# --- Try this ---------------------------------------------------------------------------------------
try_this("il")
