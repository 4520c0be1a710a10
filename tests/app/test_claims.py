"""Every sentence that states a number, a comparison or a property of what a page shows is built from the page's
numbers (core/claims.py and its like), or is on the reviewed list below with the reason it is always true (issue 51:
"every sentence shares “the”, “a”, “is”" beside sentences that did not; "the numbers above are the rounding of
float32" beside 2.2e-15; "1.00x fewer than" at merge step 0).

The detector walks every text of locales/en.toml and locales/zh.toml (every page's, the app's, the problems').
A text with {placeholders} takes its values from the code (what the values say of the figure is checked against the
figure by tests/app/test_explanations.py and each page's tests). A text without any is fixed, the same whatever the
learner's data; it is flagged when, once the parts below are left out, it still holds

- a number: a digit (English and 中文);
- a comparison: than, more, fewer, less, most, least, larger, smaller, higher, lower, greater, closer, farther,
  further, longer, shorter, faster, slower, better, worse, best, worst (中文: 比, 更, 多于, 少于, 最多, 最少, 最大,
  最小, 较);
- a quantifier: every, all, none, "no <word> is/has/was", always, never, only, both (中文: 每个, 每一, 所有, 全部, 都,
  总是, 从不, 没有, 只有, 两者);
- a property said of the data: same, equal, identical, share(s), constant, unchanged (中文: 相同, 一样, 相等, 共有,
  不变).

Left out before looking: code (`...`), formulas ($...$), Markdown links, a heading's number ("1. "), names that mix
letters and digits (GloVe 6B 50d, all-MiniLM-L6-v2, UTF-8, float32, 2D, T5); and labels: an English text of at most
eight words without sentence punctuation (a heading, an option, an axis, a button) names what is shown and states
nothing of it. A key is flagged when either language's text is.

A flagged text passes only on REVIEWED, with the reason it is true for every learner's data, and as it was reviewed:
tests/app/claims_reviewed.toml holds each reviewed text in both languages, and a text that changes since must be
reviewed again. A reviewed text whose number is a constant of the code is checked against that constant (CONSTANTS).
The list is kept exact: a key that no longer needs review must leave it.
"""

import inspect
import re
import string
import tomllib
from pathlib import Path

import pytest

from core import bpe, cloud, neighbours, positional
from ui import tokens as shared
from ui.i18n import LANGUAGES, catalog

# --- The detector ---------------------------------------------------------------------------------------------------

LEFT_OUT = (r"`[^`]*`", r"\$[^$]*\$", r"\[[^\]]*\]\([^)]*\)", r"^\s*\d+\.\s")
NAME_WITH_DIGITS = r"(?<![\w.-])(?=[\w.-]*[A-Za-z])(?=[\w.-]*\d)[\w.-]*\w"  # a word of letters and digits, hyphens
RULES = {
    "en": {
        "number": r"\d",
        "comparison": r"\b(?:than|more|fewer|less|most|least|larger|smaller|higher|lower|greater|closer|farther"
        r"|further|longer|shorter|faster|slower|better|worse|best|worst)\b",
        "quantifier": r"\b(?:every|all|none|no\s+\w+\s+(?:is|has|was)|always|never|only|both)\b",
        "property": r"\b(?:same|equal|identical|shares?|constant|unchanged)\b",
    },
    "zh": {
        "number": r"\d",
        "comparison": r"比|更|多于|少于|最多|最少|最大|最小|较",
        "quantifier": r"每个|每一|所有|全部|都|总是|从不|没有|只有|两者",
        "property": r"相同|一样|相等|共有|不变",
    },
}


def has_placeholders(text: str) -> bool:
    return any(name is not None for _, name, _, _ in string.Formatter().parse(text))


def is_label(text: str) -> bool:
    """At most eight words and no sentence punctuation (a decimal point and a heading's "1. " aside)."""
    bare = re.sub(r"\d\.\d|^\s*\d+\.\s", " ", text)
    return not re.search(r"[.:;!?。：；！？]", bare) and len(text.split()) <= 8


def claims_in(text: str, lang: str) -> list[str]:
    """The kinds of claim a fixed text makes (RULES), once code, formulas, links and technical names are left out."""
    for pattern in LEFT_OUT:
        text = re.sub(pattern, " ", text, flags=re.M)
    text = re.sub(NAME_WITH_DIGITS, " ", text)
    return [kind for kind, rule in RULES[lang].items() if re.search(rule, text, flags=re.I)]


def flagged() -> dict[str, dict[str, list[str]]]:
    """{key: {lang: kinds}} for every fixed text, not a label, that states a number, comparison or property."""
    found: dict[str, dict[str, list[str]]] = {}
    for lang in LANGUAGES:
        for key, text in catalog(lang).items():
            if has_placeholders(text) or is_label(catalog("en")[key]):
                continue
            if kinds := claims_in(text, lang):
                found.setdefault(key, {})[lang] = kinds
    return found


# --- The reviewed list: each text and why it is true whatever the learner's data -------------------------------------

LABEL = "a title, heading, option or axis: names what is shown, states nothing of the learner's data"
ASK = "an exercise's question or hint, a tip, or a page's introduction saying what to try: its numbers are settings to set and places to look, not results"
SHOWN_WHEN = "shown only when the code has found that it holds"
PROBLEM = "an error about the input, shown when its condition holds, saying what to change"

REVIEWED: dict[str, str] = {
    # spinners: shown only while that work runs, which the cached function does once per server ("the first visit
    # only") over what it names ("every method": core.sentences.METHODS)
    **dict.fromkeys(
        "sv.working_collection sv.working_order tt.working_price".split(),
        "a spinner's text, shown while the work it names runs: once per server, as its cached function is",
    ),
    # labels the eight-word rule does not catch (longer titles, presets naming a source's settings)
    **dict.fromkeys(
        """il.h_padding il.h_ok rp.h_alibi rp.past_link at.title at.weights_title at.h_checks at.h_distance
        sv.separation_title pe.ab_h_diff pe.ab_wl_title we.h_analogy es.no_sampling il.h_stages rp.ab_wl_title
        tf.moved_title tf.cosine_title tf.pca_title ov.seed000 ov.seed002 ov.seed003 ov.seed004 pe.preset_paper
        pe.preset_annotated pe.preset_kazemnejad pe.preset_illustrated pe.preset_explainer es.groups_placeholder
        ov.il_text ov.rp_text ov.at_text ov.tf_text ov.lv_text ov.es_text ov.sv_text""".split(),
        LABEL + " (the overview's texts describe a page's content)",
    ),
    **dict.fromkeys(
        """ex.tt_bytes_hint ex.tt_pieces_hint ex.tt_first_q ex.tt_first_hint ex.tt_table_hint
        ex.pe_repeat_q ex.pe_repeat_hint ex.pe_longest_q ex.pe_longest_hint ex.pe_offset_q ex.pe_offset_hint
        ex.we_analogy_hint ex.we_frog_hint ex.we_king_row_hint ex.es_queen_q ex.es_count_q ex.es_count_hint
        ex.es_kept_3d_q ex.es_kept_3d_hint ex.lv_past_q ex.lv_past_hint ex.lv_minilm_hint ex.il_scale_q
        ex.il_scale_hint ex.il_tying_q ex.il_tying_hint ex.il_ok_q ex.il_ok_hint ex.rp_slow_q ex.rp_slow_hint
        ex.rp_llama3_q ex.rp_llama3_hint ex.rp_alibi_q ex.rp_alibi_hint ex.at_shift_q ex.at_shift_hint ex.at_t5_q
        ex.at_t5_hint ex.at_alibi_q ex.at_alibi_hint ex.tf_prev_hint ex.tf_none_q ex.tf_none_hint ex.tf_bank_q
        ex.tf_bank_hint ex.sv_most_q ex.sv_learned_q ex.sv_learned_hint ex.sv_storm_q ex.sv_storm_hint ov.intro
        ov.present_tip we.no_questions_file tt.no_merges sv.order_intro tt.intro at.intro""".split(),
        ASK + " (the answers are computed in core/exercises.py)",
    ),
    **dict.fromkeys(
        """problems.cosine_zero problems.cloud_dims problems.tsne_learning_rate problems.attn_empty problems.tf_empty
        sv.refused_no_words we.no_questions""".split(),
        PROBLEM,
    ),
    # shown only when the code has found it holds (the key is picked from the data)
    "il.all_unknown": SHOWN_WHEN + ": every token unknown (input_layer.py: len(unknown) == len(tokens))",
    "sv.same_order": SHOWN_WHEN + ": the pair ranked most differently moved 0 ranks",
    "sv.check_not": SHOWN_WHEN + ": the largest |1 - cos| is not below the bound",
    "sv.not_reordered": SHOWN_WHEN + ": sentences.same_words is False for the learner's pair",
    "at.t5_own_all": SHOWN_WHEN + ": claims.bucket_reach found no shared bucket",
    "tf.named_none": SHOWN_WHEN + ": the rule named no head",
    "tt.none_unknown": SHOWN_WHEN + ": no cut met an unknown token",
    "es.no_close": SHOWN_WHEN + ": cloud.suggest found no close spelling among its `among` words (CONSTANTS)",
    "ui.ab_same": SHOWN_WHEN + ": B's settings equal A's",
    "at.no_minilm": SHOWN_WHEN + ": MiniLM's package is missing",
    "at.trained_note": SHOWN_WHEN + ": no trained table for these settings",
    "at.beyond_no_positions": "said of the scheme without positions, whose scores depend on no position at all",
    # what a method, formula or model does by construction: true for any input
    "tt.bpe_rule": "greedy BPE: each merge takes the most frequent pair left, and a pair a merge makes occurs at most "
    "as often as the merged pair, so the merged counts never rise (also checked on a training in test_text_to_tokens)",
    "tt.bpe_intro": "BPE's definition (core/bpe.py); 256 = bpe.BYTES (CONSTANTS)",
    "tt.merges_help": "a merge adds one token by definition; 256 = bpe.BYTES (CONSTANTS)",
    "sv.check_notice": "a mean is order-blind and an encoder without positions is permutation-equivariant (math)",
    "sv.same_topic_help": "the definition of the metric",
    "pe.intro": "self-attention without positions is permutation-equivariant (math)",
    "pe.layout_help": "the two layouts' definitions (core.positional)",
    "pe.d_model_1": "with one column PE[pos] = sin(pos): sin(pos) = sin(pi - pos) and period 2 pi (math)",
    "pe.table_notice": "wavelength 2 pi base^(2i/d) grows with i for base > 1, which the settings enforce",
    "pe.curves_caption_interleaved": "the interleaved layout's definition",
    "pe.sim_notice": "shown for even d_model, where sin*sin + cos*cos = cos(w(m - n)) for every column (math)",
    "pe.sim_notice_odd": "shown for odd d_model: the unpaired sine's product is not a function of m - n (math)",
    "pe.checks_notice": "the rotation M_k depends on k alone (math); exp/log vs power differ by rounding (checked "
    "beside it by the page's computed error)",
    "pe.model": "what core.positional.SinusoidalPositionalEncoding does (its code)",
    "pe.ab_wl_caption": "the dashes are figures.positional's; a raised base lengthens the slow pairs' wavelengths "
    "most since base^(2i/d) grows fastest at the largest i (math)",
    "we.eval_caption": "gensim's evaluate_word_analogies rules, which core.evaluate follows (tested against gensim)",
    "we.pca_notice": "PCA's definition; core.projection fixes the signs",
    "we.axes_notice_none": "the axis v_to - v_from's definition",
    "es.intro": "describes the page's method; the seed's examples are the seed's",
    "es.isolate_help": "what the toggle does",
    "es.learning_rate": "openTSNE's 'auto' learning rate, n / 12 (its documented rule)",
    "es.caveat_UMAP": "a caveat about what UMAP optimises, true of any layout it makes",
    "es.caveat_tSNE": "a caveat about what t-SNE optimises, true of any layout it makes",
    "es.colour_kept_help": "the colour's definition: a count from 0 to k",
    "es.kept_share_help": "the metric's definition",
    "es.trust_help": "scikit-learn's trustworthiness: 1 exactly when every k-nearest on the plot is a k-nearest in "
    "the original space; an intruder's penalty grows with its original rank (its formula)",
    "es.kept_notice": "the formula's terms, and what a neighbourhood score can and cannot say (by definition)",
    "es.curve_help": "the ks are core.neighbours.CURVE_KS (CONSTANTS)",
    "es.curve_notice": "what each method optimises; what it kept follows, computed",
    "es.sweep_notice": "what perplexity and t-SNE's density equalisation are (its method), not a reading of a panel",
    "lv.intro": "a learned table has max_len rows; the formula is defined for every position (definition)",
    "lv.test_len_help": "what the control sets",
    "lv.learned_notice_reverse": "without positions attention is permutation-equivariant: it cannot tell the "
    "mirrored place (math)",
    "lv.learned_notice_copy_back": "without positions attention is permutation-equivariant (math)",
    "lv.tables_notice": "a random table has no structure across positions; the sinusoidal one is the formula's from "
    "step 0 (definition)",
    "il.intro": "the input layer's steps (core.embeddings.InputLayer)",
    "il.training_help": "dropout's definition (torch.nn.Dropout)",
    "il.stages_notice": "LayerNorm's and dropout's definitions; a fresh LayerNorm's scale and shift are 1 and 0",
    "il.init_help": "the two initialisations' definitions",
    "il.sqrt_notice": "conditional on the xavier initialisation, whose token norm is below the PE row's at every "
    "d_model the page offers; the numbers beside it are computed (il.sqrt_measured)",
    "il.padding_caption": "padding_idx's definition: its row is zero and gets no gradient; the batch is the fixed demo",
    "il.ok_caption": "the seed's fixed example (core.embeddings.ARE_YOU_OK), shown to 4 decimals",
    "il.wordpiece_caption": "WordPiece's and BERT's conventions; the page runs MiniLM in eval mode",
    "rp.intro": "RoPE's definition: q·k after rotation depends on m - n only (math)",
    "rp.factor_help": "what the control sets",
    "rp.scaling_notice": "every scaling method slows the pairs past the original length (their definitions)",
    "rp.distance_notice": "RoFormer's section 3.4.3 bound, a function of the distance alone; on average vs a single "
    "pair is the paper's statement",
    "rp.alibi_notice": "ALiBi's definition: a fixed slope per head times the distance",
    "rp.past": "a formula is defined at every position; a learned table has max_len rows (definition)",
    "rp.method_help": "what the control sets and which sections use it",
    "rp.ab_ratio_notice": "the ratio's definition: above 1, B's wavelength is longer (math)",
    "at.seed_help": "what the seed draws; GloVe 6B 50d has 50 dimensions",
    "at.causal_help": "the causal mask's definition",
    "at.shift_help": "what the check does",
    "at.all_notice": "without positions equal words give equal rows (math); ALiBi's bias depends on distance alone",
    "at.terms_notice": "the expansion of (x + p)W_q W_k^T (x + p)^T: only the position-position term is free of "
    "content (math)",
    "at.trained_help": "what the control sets",
    "tf.pair_help": "BERT's pair format and segment ids (its definition)",
    "tf.grid_caption": "the grid's legend: what the colours and the faint line mean",
    "tf.equivariance_notice": "without positions an encoder is permutation-equivariant, so its mean pooling is "
    "order-blind (math; the check above it is computed)",
    "tf.uses_notice": "a static row is one row for every use, hence cosine 1 (definition)",
    "tf.pca_notice": "one vector per context (definition); the seed's example is the seed's",
    "tf.neighbours_notice": "a static table has one row per token whatever the context (definition)",
    "tf.heads_notice": "what a position-reading head is, by the rule's definition",
    "sv.english": "MiniLM's and GloVe's vocabularies are English (the shipped models)",
    "tt.handoff_random": "the lab has trained tables for words (GloVe) and WordPiece (MiniLM) only",
    "app.present_help": "what presenter mode does (ui.presenter)",
    # fixed facts of shipped artefacts or papers: the same for every learner
    "we.intro": "the seed's and GloVe's facts (Stanford, 2014; eight words in 2D in seed 003)",
    "lv.real_notice": "MiniLM's shipped position table (512 rows), the same for every learner; its similarity falls "
    "with distance (tests/app/test_learned_vs_sinusoidal.py)",
    "il.tying_notice": "the paper's weight tying; 37,000 x 512 = 18.9M (arithmetic on the paper's sizes)",
    "rp.base_help": "the bases the named models ship with",
    "at.base_help": "the bases the named models ship with",
    "tf.intro": "all-MiniLM-L6-v2's shape (6 layers, 12 heads of 32, 384 wide, 512 positions), the same for "
    "every learner",
    "sv.intro": "all-MiniLM-L6-v2's pooling, as sentence-transformers defines it",
    "tt.handoff_glove": "the bundled GloVe 6B 50d has 400,000 words",
    # a control's declared range, written in the text: checked against the code's constant (CONSTANTS)
    "pe.base_help": "the base's bounds, core.positional.MAX_BASE (CONSTANTS)",
    "tt.sentence_help": "the cuts read ui.tokens.MAX_CHARS characters (CONSTANTS)",
}

# A reviewed text's number that is a constant of the code: the text must hold the constant as the code has it.
CONSTANTS = {
    "tt.sentence_help": f"{shared.MAX_CHARS:,}",
    "pe.base_help": f"{positional.MAX_BASE:.0e}".replace("e+0", "e"),
    "tt.bpe_intro": str(bpe.BYTES),
    "tt.merges_help": str(bpe.BYTES),
    "es.curve_help": ", ".join(map(str, neighbours.CURVE_KS[:-1])) + f" and {neighbours.CURVE_KS[-1]}",
    "es.no_close": f"{inspect.signature(cloud.suggest).parameters['among'].default:,}",
}


def test_every_fixed_text_that_states_a_number_comparison_or_property_is_reviewed():
    unreviewed = {key: (kinds, catalog("en")[key]) for key, kinds in flagged().items() if key not in REVIEWED}
    assert not unreviewed, (
        "These texts state a number, a comparison or a property without values from the data: build them from the "
        f"figure's numbers (core/claims.py), or review them into REVIEWED with the reason each is always true: {unreviewed}"
    )


def test_the_reviewed_list_is_exact_and_gives_a_reason_for_each():
    found = flagged()
    stale = sorted(key for key in REVIEWED if key not in found)
    assert not stale, f"no longer flagged (or gone): take them off REVIEWED: {stale}"
    assert all(len(reason) > 15 for reason in REVIEWED.values())


def test_each_reviewed_text_reads_as_it_was_reviewed():
    with open(Path(__file__).with_name("claims_reviewed.toml"), "rb") as f:
        reviewed = tomllib.load(f)
    assert set(reviewed) == set(REVIEWED)
    changed = [
        (key, lang) for key in REVIEWED for lang in LANGUAGES if catalog(lang)[key] != reviewed[key][lang]
    ]  # fmt: skip
    assert not changed, f"changed since reviewed: review them again, then write them in claims_reviewed.toml: {changed}"


@pytest.mark.parametrize("key", sorted(CONSTANTS))
def test_a_reviewed_texts_constant_is_the_codes(key):
    for lang in LANGUAGES:
        assert CONSTANTS[key] in catalog(lang)[key].replace("、", ", ").replace(" 和 ", " and "), (lang, key)


@pytest.mark.parametrize(
    "text",
    [
        "Each panel has its own colour scale: GloVe means sit close together (every sentence shares “the”, “a”, “is”), "
        "MiniLM spreads its sentences out.",
        "Both give 1 by construction; the numbers above are the rounding of float32.",
        "Each merge buys less: the frequent pairs go first.",
    ],
)
def test_the_detector_flags_the_sentences_issue_51_found(text):
    assert not has_placeholders(text) and not is_label(text) and claims_in(text, "en")


def test_the_detector_leaves_out_code_formulas_names_and_labels():
    assert not claims_in("Computing on `cuda`: the $1/\\sqrt{d}$ scale of GloVe 6B 50d and all-MiniLM-L6-v2.", "en")
    assert is_label("3. Search") and is_label("Most frequent words") and not is_label("Every word is shared.")
    assert claims_in("每个句子都有这些词。", "zh") == ["quantifier"]
