"""Positions inside attention: one head, the same content, every way of giving it positions, side by side."""

import numpy as np
import streamlit as st

from core.attention.checks import beyond, shift_check
from core.attention.head import CONTENTS, AttentionConfig, fit_width
from core.attention.scores import added_terms, attend, bias, position_vectors, scores
from core.attention.view import score_by_distance
from core.claims import BucketReach
from figures.attention import distance_figure, heatmaps_figure, terms_figure
from lessons.attention.views import MINILM, TRAINED, curves, learned_tables, t5_reach, trained_table, view
from ui import live_chart
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import figure_text, problem, shown_all, t
from ui.link import IN_LINK, translated_choice
from ui.pages import page_link
from ui.vectors import bundled_or_stop

QUERY_POS_MAX = 256  # the distance view's query slides over these positions
CHAPTERS = ("schemes", "terms", "learned", "checks", "distance", "exercises")  # the lesson's sections, in order
SAME = 1e-6  # a shift changes logits of m - n only schemes by rounding alone (float64: about 1e-15)

st.title(t("at.title"))
st.markdown(t("at.intro"))

# --- Settings ---------------------------------------------------------------------------------------
# Defaults from AttentionConfig; no bounds on the boxes: a value core refuses gets its message (what to change).
# The content's options are shown translated and kept in the link as core's codes (ui.link.translated_choice).
# The settings a learner moves most (the sentence, d_model, head_dim, the seed, the mask) and the chapters are one
# fragment, `lesson`, so that a move reruns them alone; it draws those settings into the columns below. The others,
# moved far less, are outside it: a move there reruns the whole page, which passes their values to the fragment.
default = AttentionConfig()
c1, c2, c3, c4 = st.columns(4)
assert CONTENTS[0] == default.content  # translated_choice's default is the first option
content = translated_choice(
    c1.radio, t("at.content"), CONTENTS, key="at_content", format_func=lambda c: t(f"at.content_{c}")
)
shift = c4.number_input(t("at.shift"), value=default.shift, step=1, key="at_shift", help=t("at.shift_help"), **IN_LINK)
trained_len = c4.number_input(
    t("at.trained_len"), value=default.trained_len, step=1, key="at_trained_len", help=t("at.trained_help"), **IN_LINK
)
with st.expander(t("at.schemes"), expanded=True):
    s1, s2, s3 = st.columns(3)
    base = s1.number_input(
        t("at.base"), value=default.base, step=1000.0, key="at_base", help=t("at.base_help"), **IN_LINK
    )
    alibi_heads = s2.number_input(
        t("at.alibi_heads"), value=default.alibi_heads, step=1, key="at_alibi_heads", **IN_LINK
    )
    alibi_head = s2.number_input(t("at.alibi_head"), value=default.alibi_head, step=1, key="at_alibi_head", **IN_LINK)
    t5_buckets = s3.number_input(t("at.t5_buckets"), value=default.t5_buckets, step=2, key="at_t5_buckets", **IN_LINK)
    t5_max = s3.number_input(t("at.t5_max_distance"), value=default.t5_max_distance, step=8, key="at_t5_max", **IN_LINK)
    t5_bidirectional = s3.toggle(
        t("at.t5_bidirectional"), default.t5_bidirectional, key="at_t5_bidirectional", **IN_LINK
    )
settings = dict(
    content=content, shift=int(shift), trained_len=int(trained_len), base=float(base), alibi_heads=int(alibi_heads),
    alibi_head=int(alibi_head), t5_buckets=int(t5_buckets), t5_max_distance=int(t5_max),
    t5_bidirectional=t5_bidirectional,
)  # fmt: skip


def table_name(name: str) -> str:
    """A learned table's name as shown: MiniLM's is a name; the one trained on the other page is said in words."""
    return t("at.name_trained") if name == TRAINED else name


def scheme_name(label: str) -> str:
    """A scheme's or a term's label in core ("rope", "learned: MiniLM", "content-position") in the reader's words."""
    kind, _, table = label.partition(": ")
    if table:
        return t("at.name_learned_table", table=table_name(table))
    return t(f"at.name_{kind.replace('-', '_')}")


def named(values: dict) -> dict:
    """A figure's panels or lines, keyed by core's labels, keyed by what the reader reads instead."""
    return {scheme_name(label): value for label, value in values.items()}


def t5_said(reach: BucketReach) -> str:
    """T5's line past the trained length, read from its buckets at this length (core.claims.bucket_reach)."""
    values = dict(far=reach.farthest, bucket=reach.bucket, used=reach.buckets_used, unseen=reach.unseen)
    own = t("at.t5_own_all") if reach.shared_from is None else t("at.t5_own_below", shared=reach.shared_from)
    end = "at.t5_clips_reached" if reach.reaches_last else "at.t5_clips_not_reached"
    return t("at.beyond_bias_clips", **values) + own + t(end, clips_from=reach.clips_from)


@st.fragment
def lesson(settings: dict) -> None:
    if settings["content"] == "glove":
        sentence = c1.text_input(t("at.sentence"), default.sentence, key="at_sentence", **IN_LINK)
        n_tokens = default.n_tokens
    else:
        sentence = default.sentence
        n_tokens = int(c1.number_input(t("at.tokens"), value=default.n_tokens, step=1, key="at_tokens", **IN_LINK))
    d_model = int(c2.number_input("d_model", value=default.d_model, step=2, key="at_d_model", **IN_LINK))
    head_dim = int(c2.number_input("head_dim", value=default.head_dim, step=2, key="at_head_dim", **IN_LINK))
    seed = c3.number_input(t("at.seed"), value=default.seed, step=1, key="at_seed", help=t("at.seed_help"), **IN_LINK)
    causal = c3.toggle(t("at.causal"), default.causal, key="at_causal", help=t("at.causal_help"), **IN_LINK)

    cfg = None
    try:
        cfg = AttentionConfig(
            sentence=sentence, n_tokens=n_tokens, d_model=d_model, head_dim=head_dim, seed=int(seed), causal=causal,
            **settings,
        )  # fmt: skip
    except ValueError as err:
        st.error(t("at.invalid", problem=problem(err)))

    # The lesson's chapters, one at a time, as on the PE page: a setting's move redraws the figures shown alone;
    # "Try this" is the last one. Their names are translated, so the chapter is kept in the link by
    # ui.link.translated_choice (?at_chapter=terms).
    chapter = translated_choice(
        st.segmented_control,
        t("at.chapter"),
        CHAPTERS,
        key="at_chapter",
        format_func=lambda c: t(f"at.chapter_{c}"),
        required=True,
    )

    tables = dict(learned_tables())
    trained = trained_table()
    if trained is not None:
        tables[TRAINED] = trained[1]
    trained_cfg = trained[0] if trained is not None else None
    names = tuple(tables)
    where = str(device())
    if cfg is not None:
        wv = bundled_or_stop() if cfg.content == "glove" else None
        result = view(cfg, wv, tables, names, trained_cfg, where)
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
    tokens = result.head.tokens
    axes = (t("at.ax_key"), t("at.ax_query"))
    # What a configuration's figures show (live_chart adds the language); the configs by their repr, which Streamlit
    # hashes faster than a dataclass (lessons.attention.views).
    shown_for = (repr(cfg), names, repr(trained_cfg), where)

    if chapter == "schemes":
        # --- 1. Logits and softmax under every scheme -------------------------------------------------------
        st.header(t("at.h_all"))
        live_chart.cached_chart(
            "at_logits_chart",
            lambda: heatmaps_figure(named(result.matrices("logits")), tokens, t("at.logits_title"), axis_titles=axes),
            shown_for,
        )
        live_chart.cached_chart(
            "at_weights_chart",
            lambda: heatmaps_figure(
                named(result.matrices("weights")),
                tokens,
                t("at.weights_title"),
                shared=True,
                colorscale="Blues",
                zmid=None,
                axis_titles=axes,
            ),
            shown_for,
        )
        explain(
            r"\ell_{mn} = \frac{q_m^\top k_n}{\sqrt{d_h}} + b(m, n),\qquad a_{mn} = \mathrm{softmax}_n(\ell_{mn}),"
            r"\qquad q = x W_q,\; k = x W_k",
            t("at.all_notice"),
        )
        show_code(scores, bias, attend)

    elif chapter == "terms":
        # --- 2. Sinusoidal added to the input: four terms ----------------------------------------------------
        st.header(t("at.h_terms"))
        terms = result.terms("sinusoidal")
        logits = result.result("sinusoidal").logits.cpu().numpy()
        live_chart.cached_chart(
            "at_terms_chart",
            lambda: terms_figure(
                named(terms), logits, tokens, t("at.terms_title"), t("at.terms_sum"), axis_titles=axes
            ),
            shown_for,
        )
        total = sum(terms.values())
        seen = np.isfinite(logits)
        st.markdown(t("at.terms_check", err=f"{np.abs(total[seen] - logits[seen]).max():.1e}"))
        explain(
            r"(x_m + p_m) W_q \cdot (x_n + p_n) W_k = \underbrace{x_m W_q \cdot x_n W_k}_{\text{content-content}}"
            r" + \underbrace{x_m W_q \cdot p_n W_k}_{\text{content-position}}"
            r" + \underbrace{p_m W_q \cdot x_n W_k}_{\text{position-content}}"
            r" + \underbrace{p_m W_q \cdot p_n W_k}_{\text{position-position}}",
            t("at.terms_notice"),
        )
        show_code(added_terms)

    elif chapter == "learned":
        # --- 3. Learned absolute: a real table -----------------------------------------------------------------
        st.header(t("at.h_learned"))
        st.markdown(t("at.learned_intro", model=MINILM))
        for i, (name, table) in enumerate(tables.items()):
            label = f"learned: {name}"
            shape = tuple(table.shape)
            st.caption(t("at.learned_caption", rows=shape[0], width=shape[1], d_model=cfg.d_model))
            title = t("at.learned_title") if name == MINILM else t("at.trained_title", name=table_name(name))
            live_chart.cached_chart(
                f"at_learned_chart_{i}",
                lambda label=label, title=title: terms_figure(
                    named(result.terms(label)),
                    result.result(label).logits.cpu().numpy(),
                    tokens,
                    title,
                    t("at.terms_sum"),
                    axis_titles=axes,
                ),
                (*shown_for, name),
            )
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
            st.caption(
                t("at.trained_used", name=table_name(TRAINED), task=c.task, d_model=c.d_model, train_len=c.train_len,
                  steps=c.steps)
            )  # fmt: skip
        page_link("lv", t("at.lv_link"))

    elif chapter == "checks":
        # --- 4. What each scheme depends on, and past the trained length -------------------------------------
        st.header(t("at.h_checks"))
        for r in result.results:
            relative = r.shift.max_diff < SAME
            depends = t("at.relative" if relative else "at.absolute", k=r.shift.k, diff=f"{r.shift.max_diff:.2g}")
            clamped = t("at.clamped", n=r.shift.clamped) if r.shift.clamped else ""
            b = r.beyond
            values = {k: f"{v:.3g}" if isinstance(v, float) else v for k, v in b.values.items()}
            said = t5_said(t5_reach(cfg, b.length)) if b.kind == "bias_clips" else t(f"at.beyond_{b.kind}", **values)
            past = t("at.past", trained=b.trained_len, length=b.length) + " " + said
            st.markdown(f"- **{scheme_name(r.label)}**: {depends}{clamped} {past}")
        relative = [scheme_name(r.label) for r in result.results if r.shift.max_diff < SAME]  # as the lines above say
        absolute = [scheme_name(r.label) for r in result.results if r.shift.max_diff >= SAME]
        said = t("at.checks_zero", names=", ".join(relative)) if relative else ""
        said += t("at.checks_nonzero", names=", ".join(absolute)) if absolute else ""
        explain(r"\max_{m,n} \big|\ell_{m+k,\,n+k} - \ell_{m,n}\big|", said + t("at.checks_notice"))
        show_code(shift_check, beyond)

    elif chapter == "distance":
        # --- 5. Score against distance ---------------------------------------------------------------------------
        st.header(t("at.h_distance"))

        # The sliders change this section alone: a move reruns the fragment (the browser writes the URL).
        @st.fragment
        def distance_section() -> None:
            n = len(tokens)
            c1, c2, c3, c4 = st.columns(4)
            # a shorter sentence may leave a chosen token past its end: moved back to the last one, with a word about
            # tokens (ui.window.keep_inside's speaks of a table and a window: tests/app/test_attention.py)
            for name, label, column in (("at_query", t("at.query_token"), c1), ("at_key", t("at.key_token"), c2)):
                if (asked := st.session_state.get(name, 0)) > n - 1:
                    column.warning(t("at.token_moved", label=label, asked=asked, n=n, last=n - 1))
                    st.session_state[name] = n - 1
            query = int(c1.number_input(t("at.query_token"), 0, n - 1, 0, key="at_query", **IN_LINK))
            key = int(c2.number_input(t("at.key_token"), 0, n - 1, min(1, n - 1), key="at_key", **IN_LINK))
            pos = c3.slider(t("at.query_pos"), 0, QUERY_POS_MAX, 8, key="at_query_pos", **IN_LINK)
            far = c4.slider(t("at.max_distance"), 2, 64, 16, key="at_max_distance", **IN_LINK)
            distances, lines = curves(cfg, wv, tables, names, trained_cfg, where, query, key, pos, far)
            title = figure_text("at.distance_title", query=tokens[query], other=tokens[key], pos=pos)
            live_chart.cached_chart(
                "at_distance_chart",
                lambda: distance_figure(
                    distances, named(lines), title, t("at.ax_distance"), t("at.ax_logit"), revision="at"
                ),
                (*shown_for, query, key, pos, far),
            )

        distance_section()
        explain(r"\ell(m, n) = \frac{q(x_i, m)^\top k(x_j, n)}{\sqrt{d_h}} + b(m - n)", t("at.distance_notice"))
        show_code(score_by_distance)


lesson(settings)
