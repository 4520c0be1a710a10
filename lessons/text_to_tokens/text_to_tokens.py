"""Text to tokens: four ways to cut a text, a byte-pair encoding trained live, what the vocabulary's size buys and
costs, and the tokens handed on to the input layer."""

import dataclasses
from dataclasses import dataclass
from functools import partial

import pandas as pd
import streamlit as st

from core import bpe, claims, pretrained, tokens
from core.bpe import LANGS
from figures.tokens import drawn_steps, fertility_figure, merge_marker, merges_figure, price_figure, tokens_html
from lessons.input_layer import handoff
from lessons.text_to_tokens import views
from lessons.text_to_tokens.settings import SETTINGS
from ui import live_chart
from ui import tokens as shared
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import shown, t
from ui.jobs import job_progress, refusal_notice
from ui.pages import LESSONS
from ui.tables import table


def merges_said(step: int, merges: bpe.Merges) -> str:
    """Merge `step`'s pair count against the first merge's and the last's (step 0: no merge yet; step 1: the first;
    a count the ratio cannot tell from the first's: about as often)."""
    first, last, learned = f"{merges[0].count:,}", f"{merges[-1].count:,}", f"{len(merges):,}"
    if step == 0:
        return t("tt.bpe_said_zero", first=first, last=last, learned=learned)
    now = merges[step - 1].count
    if step == 1:
        return t("tt.bpe_said_first", count=first, last=last, learned=learned)
    times = views.ratio(merges[0].count, now)
    if times == views.ratio(1, 1):  # "1.00× fewer" would be no fewer at the digits shown
        return t("tt.bpe_said_tie", k=f"{step:,}", count=f"{now:,}", first=first, last=last, learned=learned)
    return t("tt.bpe_said", k=f"{step:,}", count=f"{now:,}", first=first, times=times, last=last, learned=learned)


def cuts_section() -> tuple[str, str]:
    """Section 1, four ways to cut a text: the text and its language, the four cuts, their counts. Returns the text
    read (at most ui.tokens.MAX_CHARS characters) and the language."""
    st.header(t("tt.h_cuts"))
    c1, c2 = st.columns([3, 1])
    sentence = SETTINGS["tt_sentence"].draw(c1)
    lang = SETTINGS["tt_lang"].draw(c2, required=True)
    text = sentence[: shared.MAX_CHARS]  # the box keeps all of it
    if not sentence.strip():
        st.warning(t("tt.empty"))
    elif len(sentence) > shared.MAX_CHARS:
        st.warning(t("tt.too_long", n=f"{len(sentence):,}", most=f"{shared.MAX_CHARS:,}"))
    if hidden := tokens.invisible(text):
        named = ", ".join(f"{name} ({t('tt.at', i=i + 1)})" for i, name in hidden[:8])
        dropped = tokens.wordpiece_drops(text, [i for i, _ in hidden])
        st.info(t("tt.invisible", n=len(hidden), which=named, dropped=dropped))

    with st.spinner(t("tt.working_cuts")):  # the tokenizers load on the first visit
        cuts = views.four_cuts(text, lang) if text.strip() else {}
    for name, cut in cuts.items():
        st.markdown(f"**{t(f'tt.cut_{name}')}**: " + t("tt.count", n=len(cut), vocabulary=f"{cut.vocabulary:,}"))
        st.html(tokens_html(cut.tokens, cut.ids))
    if text.strip() and "wordpiece" not in cuts:
        st.info(t("tt.no_minilm"))
    if cuts:
        cuts_compared(cuts)
    return text, lang


def cuts_compared(cuts: dict[str, tokens.Cut]) -> None:
    """The cuts side by side: their tokens, vocabularies and unknown tokens, in a table and in words."""
    names = [t(f"tt.cut_{name}") for name in cuts]
    frame = pd.DataFrame(
        {
            t("tt.col_tokens"): [len(c) for c in cuts.values()],
            t("tt.col_vocabulary"): [c.vocabulary for c in cuts.values()],
            t("tt.col_unknown"): [c.unknown for c in cuts.values()],
        },
        index=pd.Index(names, name=t("tt.col_cut")),
    )
    table(frame, "cuts")
    fewest = claims.leaders({t(f"tt.cut_{n}"): -len(c) for n, c in cuts.items()})
    most = claims.leaders({t(f"tt.cut_{n}"): len(c) for n, c in cuts.items()})
    unknown = {t(f"tt.cut_{n}"): c.unknown for n, c in cuts.items() if c.unknown}
    said = t(
        "tt.cuts_said", fewest=" = ".join(fewest), n_fewest=f"{min(len(c) for c in cuts.values()):,}",
        most=" = ".join(most), n_most=f"{max(len(c) for c in cuts.values()):,}",
        per_char=views.ratio(len(cuts["bytes"]), len(cuts["characters"])),
    )  # fmt: skip
    said += (
        t("tt.unknown_said", which=", ".join(f"{k} ({n})" for k, n in unknown.items()))
        if unknown
        else t("tt.none_unknown")
    )
    explain(
        r"\text{id}(c) = \operatorname{ord}(c) < 1{,}114{,}112 \quad \text{id}(b) = b < 256 \quad"
        r"p^{*} = \arg\max_{p \in V,\ w = p\,s} \lvert p \rvert",
        said + t("tt.cuts_rule"),
    )
    show_code(tokens.utf8_bytes, tokens.words, tokens.normalize, tokens.WordPiece.word)


@dataclass(frozen=True)
class Trained:
    """What section 2 trains on and cuts: the text, its language, the words and the merges asked for."""

    text: str
    lang: str
    words: int
    merges: int

    @property
    def key(self) -> tuple:
        """The training's key (ui.tokens.training_key)."""
        return shared.training_key(self.lang, self.words, self.merges)


def bpe_section(text: str, lang: str) -> None:
    """Section 2, BPE trained live: its words and merges, the training (its progress, or why it is refused or
    failed), then the merge steps over its merges and the hand-off."""
    st.header(t("tt.h_bpe"))
    st.markdown(t("tt.bpe_intro"))
    c1, c2 = st.columns(2)
    words = SETTINGS["tt_words"].draw(c1)
    asked = int(SETTINGS["tt_merges"].draw(c2))
    trained = Trained(text, lang, words, asked)
    job = shared.training(lang, words, asked, views.REFUSED)
    if job is None:
        refusal_notice(shared.runner(), views.REFUSED)
    elif job.error:
        st.error(t("tt.failed", error=job.error))
    elif not job.done:
        job_progress(shared.runner(), job.key, shared.describe)
    elif len(job.result) < asked:
        st.warning(t("tt.fewer", words=f"{words:,}", learned=f"{len(job.result):,}", asked=f"{asked:,}"))
    if job is not None and job.done and not job.error and job.result:
        merge_steps(trained, job.result)
    else:
        if job is not None and job.done and not job.error:
            st.info(t("tt.no_merges"))
        use_these_tokens(trained, 0)


@st.fragment
def merge_steps(trained: Trained, merges: bpe.Merges) -> None:
    """The merge-step slider and what it shows: merge k, the text re-cut at it, the last merges, each merge's count
    (a fragment: a step reruns this part alone), then the hand-off. Everything but the re-cut is read off the
    training's `merges`, which the page holds."""
    learned = len(merges)
    declared = SETTINGS["tt_step"]
    if st.session_state.get("tt_step", 0) > learned:  # a step of a longer training, or from a link
        st.info(t("tt.step_past", step=f"{st.session_state['tt_step']:,}", learned=learned))
        st.session_state["tt_step"] = learned
    step_setting = dataclasses.replace(declared, high=learned, default=min(declared.default, learned))
    step = int(step_setting.draw(label=t("tt.step", learned=f"{learned:,}")))
    if step:
        m = merges[step - 1]
        left, right = (tokens.shown_bytes(b) for b in bpe.pair_bytes(merges, step))
        said = t("tt.merge_k", k=step, left=shown(left), right=shown(right), count=f"{m.count:,}",
                 token=shown(tokens.shown_bytes(m.token)), id=m.id)  # fmt: skip
        st.markdown(said)
    if trained.text.strip():
        cut = views.bpe_at(trained.text, trained.key, step)
        recut = t("tt.recut", n=len(cut), bytes=f"{len(trained.text.encode()):,}", vocabulary=f"{cut.vocabulary:,}")
        st.markdown(recut)
        st.html(tokens_html(cut.tokens, cut.ids))
    c1, c2 = st.columns([1, 2])
    with c1:
        last_merges(merges, step)
    with c2:
        merges_chart(trained, merges, step)
    explain(
        r"(a, b)_k = \arg\max_{(a, b)} \sum_{w} c(w)\, n_{ab}(w) \qquad |V_k| = 256 + k",
        merges_said(step, merges) + t("tt.bpe_rule"),
    )
    show_code(bpe.train, bpe.encode_word)
    use_these_tokens(trained, step)


def last_merges(merges: bpe.Merges, step: int) -> None:
    """The vocabulary's size at `step` and the last eight merges up to it, newest first."""
    recent = range(step - 1, max(step - 8, 0) - 1, -1)
    frame = pd.DataFrame(
        {
            t("tt.col_new"): [tokens.shown_bytes(merges[k].token) for k in recent],
            t("tt.col_count"): [merges[k].count for k in recent],
        },
        index=pd.Index([k + 1 for k in recent], name=t("tt.col_merge")),
    )
    st.markdown(t("tt.vocabulary_now", n=f"{bpe.BYTES + step:,}"))
    table(frame, "merges")


def merges_chart(trained: Trained, merges: bpe.Merges, step: int) -> None:
    """Each merge's pair count, merge `step` marked over it: the line stays the same text as the step moves."""
    drawn = drawn_steps(len(merges))
    texts = (t("tt.merges_title", words=f"{trained.words:,}", lang=t(f"tt.lang_{trained.lang}")), t("tt.col_merge"),
             t("tt.col_count"))  # fmt: skip
    line = partial(merges_figure, drawn, [merges[k - 1].count for k in drawn], *texts)
    marker = partial(merge_marker, step, merges[step - 1].count, t("tt.this_merge")) if step else None
    live_chart.cached_chart("tt_merges_chart", line, overlay=marker)


def use_these_tokens(trained: Trained, step: int) -> None:
    """The cut to hand on, and the link that opens the input layer on it (lessons.input_layer.handoff)."""
    st.subheader(t("tt.h_use"))
    chosen = SETTINGS["tt_cut"].draw(horizontal=True)  # a radio: its options wrap on a narrow screen
    params = handoff.link(trained.text, chosen, trained.lang, trained.words, trained.merges, step)
    st.page_link(LESSONS["il"].script, label=t("tt.use"), icon=":material/arrow_forward:", query_params=params)
    st.caption(t(f"tt.handoff_{handoff.table_for(chosen)}"))


# Sections 1 and 2 are one fragment: the text, its language and BPE's settings change nothing else, so a move among
# them reruns these two sections alone (and a merge step its own part of section 2).
@st.fragment
def text_and_bpe() -> None:
    text, lang = cuts_section()
    bpe_section(text, lang)


def vocabulary_size_section() -> None:
    """Section 3, what the vocabulary's size buys: BPE's fertility as its vocabulary grows, in English and Chinese,
    beside WordPiece's (its trainings of CURVE_MERGES merges run in the shared queue)."""
    st.header(t("tt.h_size"))
    curves_jobs = {
        lg: shared.training(lg, views.CURVE_WORDS, views.CURVE_MERGES, views.REFUSED, wait=0) for lg in LANGS
    }
    waiting = [j for j in curves_jobs.values() if j is not None and not j.done]
    if any(j is None for j in curves_jobs.values()):
        refusal_notice(shared.runner(), views.REFUSED)
    elif waiting:
        st.caption(t("tt.curves_training", words=f"{views.CURVE_WORDS:,}", vocabulary=f"{views.CURVE_VOCABULARY:,}"))
        job_progress(shared.runner(), waiting[0].key, shared.describe)
    elif failed := [j for j in curves_jobs.values() if j is not None and j.error]:
        st.error(t("tt.failed", error=failed[0].error))
    else:
        fertility_curves()


def fertility_curves() -> None:
    """The fertility chart, once both trainings are done, and what it says."""
    curves = {lg: views.fertility_curve(lg) for lg in LANGS}
    lines = {
        t("tt.bpe_in", lang=t(f"tt.lang_{lg}")): (views.SIZES, [c[s - bpe.BYTES] for s in views.SIZES])
        for lg, c in curves.items()
    }
    points = {}
    try:
        wp = {lg: views.wordpiece_fertility(lg) for lg in LANGS}
        points = {t("tt.wp_in", lang=t(f"tt.lang_{lg}")): (len(shared.wordpiece()), v) for lg, v in wp.items()}
    except pretrained.PretrainedMissing:
        wp = {}
        st.info(t("tt.no_minilm"))
    texts = (t("tt.fertility_title", words=f"{views.CURVE_WORDS:,}"), t("tt.ax_vocabulary"), t("tt.ax_fertility"))
    live_chart.cached_chart("tt_fertility_chart", partial(fertility_figure, lines, points, *texts))
    at = views.MINILM_VOCABULARY  # BPE at WordPiece's size
    en, zh = curves["en"][at - bpe.BYTES], curves["zh"][at - bpe.BYTES]
    said = t("tt.fertility_said", at=f"{at:,}", en=f"{en:.2f}", zh=f"{zh:.2f}", times=views.ratio(zh, en),
             en0=f"{curves['en'][0]:.2f}", zh0=f"{curves['zh'][0]:.2f}")  # fmt: skip
    if wp:
        said += t("tt.fertility_wp", en=f"{wp['en']:.2f}", zh=f"{wp['zh']:.2f}")
    explain(r"\text{fertility}(V) = \frac{\sum_w c(w)\, \lvert \mathrm{tokens}_V(w) \rvert}{\sum_w c(w)}", said)
    show_code(bpe.fertility, tokens.wordpiece_fertility)


def price_section() -> None:
    """What the vocabulary costs: MiniLM's embedding table among its parameters, with an output layer tied or not."""
    st.subheader(t("tt.h_price"))
    try:
        with st.spinner(t("tt.working_price")):  # MiniLM's weights read on the first visit
            price = views.minilm_price()
    except pretrained.PretrainedMissing:
        st.info(t("tt.no_minilm"))
        return
    table_part, rest, output = t("tt.part_table"), t("tt.part_rest"), t("tt.part_output")
    bars = {
        t("tt.bar_minilm"): {table_part: price.table, rest: price.total - price.table},
        t("tt.bar_untied"): {table_part: price.table, rest: price.total - price.table, output: price.table},
        t("tt.bar_tied"): {table_part: price.table, rest: price.total - price.table, output: 0},
    }
    price_texts = (t("tt.price_title"), t("tt.ax_parameters"))
    live_chart.cached_chart("tt_price_chart", partial(price_figure, bars, *price_texts))
    explain(
        rf"|V| \times d_{{model}} = {price.vocabulary:,} \times {price.d_model} = {price.table:,}".replace(",", "{,}"),
        t("tt.price_said", table=views.millions(price.table), total=views.millions(price.total),
          share=f"{price.share:.0%}", untied=views.millions(price.with_output(tied=False)),
          tied=views.millions(price.with_output(tied=True))),
    )  # fmt: skip
    show_code(tokens.parameter_counts, tokens.price_from_file)


st.title(t("tt.title"))
st.markdown(t("tt.intro"))
text_and_bpe()
vocabulary_size_section()
price_section()
try_this("tt")
