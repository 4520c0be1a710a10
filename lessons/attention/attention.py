"""Positions inside attention: one head, the same content, every way of giving it positions, side by side."""

from typing import Any

import numpy as np
import streamlit as st
import torch

from core.attention.checks import beyond, shift_check
from core.attention.head import AttentionConfig, fit_width
from core.attention.scores import added_terms, attend, bias, position_vectors, scores
from core.attention.view import score_by_distance
from core.claims import BucketReach
from core.training import TrainConfig
from lessons.attention import charts
from lessons.attention.charts import scheme_name, table_name
from lessons.attention.settings import SETTINGS
from lessons.attention.views import MINILM, TRAINED, learned_tables, t5_reach, trained_table, view
from lessons.learned_vs_sinusoidal.settings import SETTINGS as LV_SETTINGS
from ui import live_chart
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, shown_all, t
from ui.pages import page_link
from ui.vectors import bundled_or_stop

SAME = 1e-6  # a shift changes logits of m - n only schemes by rounding alone (float64: about 1e-15)

st.title(t("at.title"))
st.markdown(t("at.intro"))

# --- Settings ---------------------------------------------------------------------------------------
# Declared in lessons/attention/settings.py. The settings a learner moves most (the sentence, d_model, head_dim, the
# seed, the mask) and the chapters are one fragment, `lesson`, so that a move reruns them alone; it draws those
# settings into the columns below. The others, moved far less, are outside it: a move there reruns the whole page,
# which passes their values to the fragment.
default = AttentionConfig()
c1, c2, c3, c4 = st.columns(4)
content = SETTINGS["at_content"].draw(c1)
shift = SETTINGS["at_shift"].draw(c4)
trained_len = SETTINGS["at_trained_len"].draw(c4)
with st.expander(t("at.schemes"), expanded=True):
    s1, s2, s3 = st.columns(3)
    base = SETTINGS["at_base"].draw(s1)
    alibi_heads = SETTINGS["at_alibi_heads"].draw(s2)
    alibi_head = SETTINGS["at_alibi_head"].draw(s2)
    t5_buckets = SETTINGS["at_t5_buckets"].draw(s3)
    t5_max = SETTINGS["at_t5_max"].draw(s3)
    t5_bidirectional = SETTINGS["at_t5_bidirectional"].draw(s3)
settings = dict(
    content=content, shift=int(shift), trained_len=int(trained_len), base=float(base), alibi_heads=int(alibi_heads),
    alibi_head=int(alibi_head), t5_buckets=int(t5_buckets), t5_max_distance=int(t5_max),
    t5_bidirectional=t5_bidirectional,
)  # fmt: skip


def t5_said(reach: BucketReach) -> str:
    """T5's line past the trained length, read from its buckets at this length (core.claims.bucket_reach)."""
    values = dict(far=reach.farthest, bucket=reach.bucket, used=reach.buckets_used, unseen=reach.unseen)
    own = t("at.t5_own_all") if reach.shared_from is None else t("at.t5_own_below", shared=reach.shared_from)
    end = "at.t5_clips_reached" if reach.reaches_last else "at.t5_clips_not_reached"
    return t("at.beyond_bias_clips", **values) + own + t(end, clips_from=reach.clips_from)


def head_config(settings: dict) -> AttentionConfig | None:
    """The fragment's own settings, drawn into the columns above, and the AttentionConfig they make with the others;
    None, after core's message, when it refuses them."""
    if settings["content"] == "glove":
        sentence = SETTINGS["at_sentence"].draw(c1)
        n_tokens = default.n_tokens
    else:
        sentence = default.sentence
        n_tokens = int(SETTINGS["at_tokens"].draw(c1))
    d_model = int(SETTINGS["at_d_model"].draw(c2))
    head_dim = int(SETTINGS["at_head_dim"].draw(c2))
    seed = SETTINGS["at_seed"].draw(c3)
    causal = SETTINGS["at_causal"].draw(c3)
    try:
        return AttentionConfig(
            sentence=sentence, n_tokens=n_tokens, d_model=d_model, head_dim=head_dim, seed=int(seed), causal=causal,
            **settings,
        )  # fmt: skip
    except ValueError as err:
        st.error(t("at.invalid", problem=problem(err)))
        return None


@st.fragment
def lesson(settings: dict) -> None:
    cfg = head_config(settings)

    # The lesson's chapters, one at a time, as on the PE page: a setting's move redraws the figures shown alone;
    # "Try this" is the last one. Their names are translated, so the chapter is kept in the link by hand
    # (?at_chapter=terms).
    chapter = SETTINGS["at_chapter"].draw(required=True)

    tables = dict(learned_tables())
    trained = trained_table()
    if trained is not None:
        tables[TRAINED] = trained[1]
    where = str(device())
    if cfg is not None:
        wv = bundled_or_stop() if cfg.content == "glove" else None
        result = view(cfg, wv, tables, where)
        if result.head.unknown:
            st.warning(t("at.unknown", words=shown_all(dict.fromkeys(result.head.unknown))))
        if MINILM not in tables:
            st.info(t("at.no_minilm"))
    if chapter == "exercises":
        # --- Try this ---------------------------------------------------------------------------------------
        try_this("at", bundled_or_stop())  # an answer reads the default sentence through GloVe
        return
    if cfg is None:
        return
    # What a configuration's figures are computed from (lessons/attention/charts.py): each is built once per server.
    shown_for = (cfg, wv, tables, where)
    if chapter == "schemes":
        schemes_chapter(shown_for)
    elif chapter == "terms":
        terms_chapter(shown_for)
    elif chapter == "learned":
        learned_chapter(shown_for, trained)
    elif chapter == "checks":
        checks_chapter(shown_for)
    elif chapter == "distance":
        distance_chapter(shown_for)


# What a configuration's figures are computed from: its AttentionConfig, the vectors, the learned tables, the device.
Shown = tuple[AttentionConfig, Any, dict[str, torch.Tensor], str]


# --- 1. Logits and softmax under every scheme -----------------------------------------------------------------------
def schemes_chapter(shown_for: Shown) -> None:
    st.header(t("at.h_all"))
    live_chart.chart(charts.logits_chart(*shown_for), "at_logits_chart")
    live_chart.chart(charts.weights_chart(*shown_for), "at_weights_chart")
    explain(
        r"\ell_{mn} = \frac{q_m^\top k_n}{\sqrt{d_h}} + b(m, n),\qquad a_{mn} = \mathrm{softmax}_n(\ell_{mn}),"
        r"\qquad q = x W_q,\; k = x W_k",
        t("at.all_notice"),
    )
    show_code(scores, bias, attend)


# --- 2. Sinusoidal added to the input: four terms -------------------------------------------------------------------
def terms_chapter(shown_for: Shown) -> None:
    st.header(t("at.h_terms"))
    result = view(*shown_for)
    terms = result.terms("sinusoidal")
    logits = result.result("sinusoidal").logits.cpu().numpy()
    live_chart.chart(charts.terms_chart(*shown_for, "sinusoidal", t("at.terms_title")), "at_terms_chart")
    total = np.sum(list(terms.values()), axis=0)
    seen = np.isfinite(logits)
    st.markdown(t("at.terms_check", err=f"{np.abs(total[seen] - logits[seen]).max():.1e}"))
    explain(
        r"(x_m + p_m) W_q \cdot (x_n + p_n) W_k = \underbrace{x_m W_q \cdot x_n W_k}_{\text{content-content}}"
        # \allowbreak: on a phone the sum breaks between its four named terms, never inside one
        r" \allowbreak + \underbrace{x_m W_q \cdot p_n W_k}_{\text{content-position}}"
        r" \allowbreak + \underbrace{p_m W_q \cdot x_n W_k}_{\text{position-content}}"
        r" \allowbreak + \underbrace{p_m W_q \cdot p_n W_k}_{\text{position-position}}",
        t("at.terms_notice"),
    )
    show_code(added_terms)


# --- 3. Learned absolute: a real table ------------------------------------------------------------------------------
def learned_chapter(shown_for: Shown, trained: tuple[TrainConfig, torch.Tensor] | None) -> None:
    st.header(t("at.h_learned"))
    st.markdown(t("at.learned_intro", model=MINILM))
    cfg, tables = shown_for[0], shown_for[2]
    for i, (name, table) in enumerate(tables.items()):
        label = f"learned: {name}"
        shape = tuple(table.shape)
        st.caption(t("at.learned_caption", rows=shape[0], width=shape[1], d_model=cfg.d_model))
        title = t("at.learned_title") if name == MINILM else t("at.trained_title", name=table_name(name))
        live_chart.chart(charts.terms_chart(*shown_for, label, title), f"at_learned_chart_{i}")
    if tables:
        explain(
            r"h_m = x_m + P[m],\qquad P \in \mathbb{R}^{\text{rows} \times \text{width}}",
            t("at.learned_notice"),
        )
        show_code(position_vectors, fit_width)
    if trained is None:
        st.caption(t("at.trained_note"))
    else:
        c = trained[0]
        task = LV_SETTINGS["lv_task"].format_option(c.task)  # as that page shows it
        st.caption(
            t("at.trained_used", name=table_name(TRAINED), task=task, d_model=c.d_model, train_len=c.train_len,
              steps=c.steps)
        )  # fmt: skip
    page_link("lv", t("at.lv_link"))


# --- 4. What each scheme depends on, and past the trained length ----------------------------------------------------
def checks_chapter(shown_for: Shown) -> None:
    st.header(t("at.h_checks"))
    cfg, result = shown_for[0], view(*shown_for)
    for r in result.results:
        relative = r.shift.max_diff < SAME
        depends = t("at.relative" if relative else "at.absolute", k=r.shift.k, diff=f"{r.shift.max_diff:.2g}")
        clamped = t("at.clamped", n=r.shift.clamped) if r.shift.clamped else ""
        b = r.beyond
        values = {k: f"{v:.3g}" if isinstance(v, float) else v for k, v in b.values.items()}
        said = t5_said(t5_reach(cfg, b.length)) if b.kind == "bias_clips" else t(f"at.beyond_{b.kind}", **values)
        past = t("at.past", trained=b.trained_len, length=b.length) + " " + said
        st.markdown(f"- **{scheme_name(r.label)}**: {depends}{clamped} {past}")
    same = [scheme_name(r.label) for r in result.results if r.shift.max_diff < SAME]  # as the lines above say
    moved = [scheme_name(r.label) for r in result.results if r.shift.max_diff >= SAME]
    said = t("at.checks_zero", names=", ".join(same)) if same else ""
    said += t("at.checks_nonzero", names=", ".join(moved)) if moved else ""
    explain(r"\max_{m,n} \big|\ell_{m+k,\,n+k} - \ell_{m,n}\big|", said + t("at.checks_notice"))
    show_code(shift_check, beyond)


# --- 5. Score against distance --------------------------------------------------------------------------------------
def distance_chapter(shown_for: Shown) -> None:
    st.header(t("at.h_distance"))
    distance_section(shown_for)
    explain(r"\ell(m, n) = \frac{q(x_i, m)^\top k(x_j, n)}{\sqrt{d_h}} + b(m - n)", t("at.distance_notice"))
    show_code(score_by_distance)


# The sliders change this section alone: a move reruns the fragment (the browser writes the URL).
@st.fragment
def distance_section(shown_for: Shown) -> None:
    n = len(view(*shown_for).head.tokens)
    c1, c2, c3, c4 = st.columns(4)
    # a shorter sentence may leave a chosen token past its end: moved back to the last one, with a word about
    # tokens (ui.settings.Setting.keep_inside's speaks of a table and a window: tests/app/test_attention.py)
    tokens_box = {"at_query": c1, "at_key": c2}
    for name, column in tokens_box.items():
        if (asked := st.session_state.get(name, 0)) > n - 1:
            label = SETTINGS[name].shown_label()
            column.warning(t("at.token_moved", label=label, asked=asked, n=n, last=n - 1))
            st.session_state[name] = n - 1
    query, key = (
        int(SETTINGS[name].draw(column, max_value=n - 1, value=min(SETTINGS[name].default, n - 1)))
        for name, column in tokens_box.items()
    )
    pos = SETTINGS["at_query_pos"].draw(c3)
    far = SETTINGS["at_max_distance"].draw(c4)
    live_chart.chart(charts.distance_chart(*shown_for, query, key, pos, far), "at_distance_chart")


lesson(settings)
