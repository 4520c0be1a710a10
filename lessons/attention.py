"""Positions inside attention: one head, the same content, every way of giving it positions, side by side."""

import numpy as np
import streamlit as st
import torch

from core import attention, attention_checks, attention_head, attention_scores
from core.attention_head import CONTENTS, AttentionConfig
from core.pretrained import PretrainedMissing
from core.training import TrainConfig
from figures.attention import distance_figure, heatmaps_figure, terms_figure
from ui import live_chart
from ui.caching import page_cache_data
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, shown, t
from ui.jobs import training_runner
from ui.link import IN_LINK, translated_choice
from ui.pages import page_link
from ui.parse import parse_number
from ui.resources import minilm_positions
from ui.vectors import bundled_or_stop

MINILM = "MiniLM"  # the real learned table's name in the labels ("learned: MiniLM")
TRAINED = "trained here"  # the table trained on the learned-vs-sinusoidal page ("learned: trained here")
LV_SETTINGS = ("task", "shift", "d_model", "train_len", "steps", "seed")  # that page's settings, key "lv_<name>"
QUERY_POS_MAX = 256  # the distance view's query slides over these positions
CHAPTERS = ("schemes", "terms", "learned", "checks", "distance", "exercises")  # the lesson's sections, in order
SAME = 1e-6  # a shift changes logits of m - n only schemes by rounding alone (float64: about 1e-15)


@st.cache_resource(show_spinner=False)
def learned_tables() -> dict[str, torch.Tensor]:
    """The learned tables every learner shares: MiniLM's real one; {} when its package is missing."""
    try:
        return {MINILM: torch.from_numpy(minilm_positions())}
    except PretrainedMissing:
        return {}


def trained_table() -> tuple[TrainConfig, torch.Tensor] | None:
    """The learned table the learned-vs-sinusoidal page has trained with its current settings, or None while there
    is none. Its settings are kept across pages (persist_state), so they are read from the session, each one
    missing (that page not opened yet) its TrainConfig default; the job is looked up in the training queue both
    pages share, never started here."""
    default = TrainConfig()
    chosen = {name: st.session_state.get(f"lv_{name}", getattr(default, name)) for name in LV_SETTINGS}
    try:
        lr = parse_number(st.session_state.get("lv_lr", f"{default.lr:g}"), "lr", f"{default.lr:g}")
        train_cfg = TrainConfig(position="learned", lr=lr, **chosen)
    except ValueError:  # that page shows what is wrong with its settings
        return None
    job = training_runner().get(train_cfg)
    if job is None or not job.done or job.error:
        return None
    return train_cfg, job.result.table


@page_cache_data(max_entries=32, show_spinner=False)
def view(
    cfg: AttentionConfig, _wv, _tables: dict, names: tuple[str, ...], trained: TrainConfig | None, where: str
) -> attention.AttentionView:
    """Every scheme's result for one configuration: the vectors are the bundled GloVe, the tables known by their
    names and the trained one by its TrainConfig, and `where` is the device, so the key needs none of them."""
    return attention.attention_view(cfg, _wv, _tables, device=where)


@page_cache_data(max_entries=64, show_spinner=False)
def curves(
    cfg: AttentionConfig,
    _wv,
    _tables: dict,
    names: tuple[str, ...],
    trained: TrainConfig | None,
    where: str,
    query: int,
    key: int,
    pos: int,
    far: int,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every scheme's logit of one query token against one key token as the key moves (cpu arrays)."""
    head = view(cfg, _wv, _tables, names, trained, where).head
    distances, lines = attention.score_by_distance(
        head, cfg, _tables, query=query, key=key, query_pos=pos, max_distance=far
    )
    return distances.cpu().numpy(), {label: line.cpu().numpy() for label, line in lines.items()}


st.title(t("at.title"))
st.markdown(t("at.intro"))

# --- Settings ---------------------------------------------------------------------------------------
# Defaults from AttentionConfig; no bounds on the boxes: a value core refuses gets its message (what to change).
# The content's options are core's codes, the same in every language (a bound radio writes its text into the link).
default = AttentionConfig()
c1, c2, c3, c4 = st.columns(4)
content = c1.radio(t("at.content"), CONTENTS, CONTENTS.index(default.content), key="at_content", **IN_LINK)
if content == "glove":
    sentence = c1.text_input(t("at.sentence"), default.sentence, key="at_sentence", **IN_LINK)
    n_tokens = default.n_tokens
else:
    sentence = default.sentence
    n_tokens = int(c1.number_input(t("at.tokens"), value=default.n_tokens, step=1, key="at_tokens", **IN_LINK))
d_model = int(c2.number_input("d_model", value=default.d_model, step=2, key="at_d_model", **IN_LINK))
head_dim = int(c2.number_input("head_dim", value=default.head_dim, step=2, key="at_head_dim", **IN_LINK))
seed = int(c3.number_input(t("at.seed"), value=default.seed, step=1, key="at_seed", help=t("at.seed_help"), **IN_LINK))
causal = c3.toggle(t("at.causal"), default.causal, key="at_causal", help=t("at.causal_help"), **IN_LINK)
shift = int(
    c4.number_input(t("at.shift"), value=default.shift, step=1, key="at_shift", help=t("at.shift_help"), **IN_LINK)
)
trained_len = int(
    c4.number_input(
        t("at.trained_len"),
        value=default.trained_len,
        step=1,
        key="at_trained_len",
        help=t("at.trained_help"),
        **IN_LINK,
    )
)
with st.expander(t("at.schemes"), expanded=True):
    c1, c2, c3 = st.columns(3)
    base = c1.number_input(
        t("at.base"), value=default.base, step=1000.0, key="at_base", help=t("at.base_help"), **IN_LINK
    )
    alibi_heads = int(
        c2.number_input(t("at.alibi_heads"), value=default.alibi_heads, step=1, key="at_alibi_heads", **IN_LINK)
    )
    alibi_head = int(
        c2.number_input(t("at.alibi_head"), value=default.alibi_head, step=1, key="at_alibi_head", **IN_LINK)
    )
    t5_buckets = int(
        c3.number_input(t("at.t5_buckets"), value=default.t5_buckets, step=2, key="at_t5_buckets", **IN_LINK)
    )
    t5_max = int(
        c3.number_input(t("at.t5_max_distance"), value=default.t5_max_distance, step=8, key="at_t5_max", **IN_LINK)
    )
    t5_bidirectional = c3.toggle(
        t("at.t5_bidirectional"), default.t5_bidirectional, key="at_t5_bidirectional", **IN_LINK
    )

cfg = None
try:
    cfg = AttentionConfig(
        content, sentence, n_tokens, d_model, head_dim, seed, causal, float(base), alibi_heads, alibi_head,
        t5_buckets, t5_max, t5_bidirectional, shift, trained_len,
    )  # fmt: skip
except ValueError as err:
    st.error(t("at.invalid", problem=problem(err)))

# The lesson's chapters, one at a time, as on the PE page: after a fragment runs (the distance sliders) Streamlit
# redraws every element on the page, and a setting's move redraws every figure shown; "Try this" is the last one.
# Their names are translated, so the chapter is kept in the link by ui.link.translated_choice (?at_chapter=terms).
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
    tokens = result.head.tokens
    if result.head.unknown:
        st.warning(t("at.unknown", words=", ".join(shown(w) for w in dict.fromkeys(result.head.unknown))))
    if MINILM not in tables:
        st.info(t("at.no_minilm"))
    axes = (t("at.ax_key"), t("at.ax_query"))

    if chapter == "schemes":
        # --- 1. Logits and softmax under every scheme -------------------------------------------------------
        st.header(t("at.h_all"))
        logits_figure = heatmaps_figure(result.matrices("logits"), tokens, t("at.logits_title"), axis_titles=axes)
        live_chart.chart(logits_figure, "at_logits_chart")
        weights = result.matrices("weights")
        live_chart.chart(
            heatmaps_figure(
                weights, tokens, t("at.weights_title"), shared=True, colorscale="Blues", zmid=None, axis_titles=axes
            ),
            "at_weights_chart",
        )
        explain(
            r"\ell_{mn} = \frac{q_m^\top k_n}{\sqrt{d_h}} + b(m, n),\qquad a_{mn} = \mathrm{softmax}_n(\ell_{mn}),"
            r"\qquad q = x W_q,\; k = x W_k",
            t("at.all_notice"),
        )
        show_code(attention_scores.scores, attention_scores.bias, attention_scores.attend)

    elif chapter == "terms":
        # --- 2. Sinusoidal added to the input: four terms ----------------------------------------------------
        st.header(t("at.h_terms"))
        sinusoidal = result.result("sinusoidal")
        terms = result.terms("sinusoidal")
        logits = sinusoidal.logits.cpu().numpy()
        terms_chart = terms_figure(terms, logits, tokens, t("at.terms_title"), t("at.terms_sum"), axis_titles=axes)
        live_chart.chart(terms_chart, "at_terms_chart")
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
        show_code(attention_scores.added_terms)

    elif chapter == "learned":
        # --- 3. Learned absolute: a real table -----------------------------------------------------------------
        st.header(t("at.h_learned"))
        st.markdown(t("at.learned_intro", model=MINILM))
        for i, (name, table) in enumerate(tables.items()):
            label = f"learned: {name}"
            shape = tuple(table.shape)
            st.caption(t("at.learned_caption", rows=shape[0], width=shape[1], d_model=cfg.d_model))
            learned_logits = result.result(label).logits.cpu().numpy()
            title = t("at.learned_title") if name == MINILM else t("at.trained_title", name=TRAINED)
            live_chart.chart(
                terms_figure(result.terms(label), learned_logits, tokens, title, t("at.terms_sum"), axis_titles=axes),
                f"at_learned_chart_{i}",
            )
        if tables:
            explain(
                r"h_m = x_m + P[m],\qquad P \in \mathbb{R}^{\text{rows} \times \text{width}}", t("at.learned_notice")
            )
            show_code(attention_scores.position_vectors, attention_head.fit_width)
        if trained is None:
            st.caption(t("at.trained_note"))
        else:
            c = trained[0]
            st.caption(
                t("at.trained_used", name=TRAINED, task=c.task, d_model=c.d_model, train_len=c.train_len, steps=c.steps)
            )
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
            past = t("at.past", trained=b.trained_len, length=b.length) + " " + t(f"at.beyond_{b.kind}", **values)
            st.markdown(f"- **{r.label}**: {depends}{clamped} {past}")
        explain(r"\max_{m,n} \big|\ell_{m+k,\,n+k} - \ell_{m,n}\big|", t("at.checks_notice"))
        show_code(attention_checks.shift_check, attention_checks.beyond)

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
            title = t("at.distance_title", query=shown(tokens[query]), other=shown(tokens[key]), pos=pos)
            figure = distance_figure(distances, lines, title, t("at.ax_distance"), t("at.ax_logit"), revision="at")
            live_chart.chart(figure, "at_distance_chart")

        distance_section()
        explain(r"\ell(m, n) = \frac{q(x_i, m)^\top k(x_j, n)}{\sqrt{d_h}} + b(m - n)", t("at.distance_notice"))
        show_code(attention.score_by_distance)

if chapter == "exercises":
    # --- Try this ---------------------------------------------------------------------------------------
    try_this("at", bundled_or_stop())  # an answer reads the default sentence through GloVe
