"""The input layer, stage by stage: token x sqrt(d_model) + position + segment -> LayerNorm -> dropout."""

import pandas as pd
import streamlit as st
import torch

from core import embeddings as emb
from core import pretrained
from core.glove import VectorsError
from core.positional import sinusoidal_encoding
from figures.positional import pe_heatmap_figure
from figures.training import lines_figure
from ui import Between, bundled_vectors, device, downloads, explain, set_defaults, show_code, table
from ui.caching import page_cache_data
from ui.exercises import try_this
from ui.i18n import problem, t
from ui.resources import minilm_input

MODES = ("glove", "random", "minilm")  # shown as t("il.mode_<mode>")
SIZES = [8, 16, 32, 64, 128, 256, 512, 1024]  # the d_models of section 2
DEFAULTS = dict(
    mode=MODES[0],
    sentence="Are you OK ?",
    pair="",
    scale=True,
    position="sinusoidal",
    d_model=64,
    max_len=32,
    dropout=0.1,
    train=False,
    init="normal",
    vocab=37_000,
    tie_d=512,
)
CHOICES = dict(
    mode=list(MODES),
    position=["sinusoidal", "learned"],
    d_model=[4, 8, 16, 32, 64, 128, 256, 512],
    max_len=Between(1, 512),
    dropout=Between(0.0, 0.9),
    init=["normal", "xavier"],
    vocab=Between(2, 1_000_000),
    tie_d=Between(1, 16384),
)


def key_text(name: str) -> str:
    """A name core uses as a dict key ("+ position", "input embedding"), in the reader's language."""
    return t("il.k_" + "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_"))


def show_stages(stages: dict[str, torch.Tensor], tokens: list[str]) -> None:
    for name, values in stages.items():
        labels = [f"{i}: {token}" for i, token in enumerate(tokens)]
        figure = pe_heatmap_figure(
            values.detach().cpu().numpy(),
            title=key_text(name),
            zmax=None,
            row_labels=labels,
            axis_titles=(t("pe.ax_dimension"), ""),
        )
        st.plotly_chart(figure, key=f"il_stage_{name}")
    downloads("stages", array=torch.stack([v.detach() for v in stages.values()]))  # (stage, token, d)


def four_decimals(values: torch.Tensor, rows: list[str]) -> pd.DataFrame:
    return pd.DataFrame(values.cpu().numpy(), index=rows).round(4)


@page_cache_data(max_entries=4)
def norms(init: str) -> dict[str, list[float]]:
    return emb.norms_against_d_model(SIZES, init, device=device())


@page_cache_data(max_entries=1)
def padding_demo() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    batch = emb.pad_batch([[1, 2, 3], [4, 5]])
    return batch, *emb.padding_gradients(batch, vocab_size=10, d_model=3, device=device())


link = set_defaults("il", DEFAULTS, CHOICES)

st.title(t("il.title"))
st.markdown(t("il.intro"))


# The settings change section 1 alone, so they and it are a fragment: a move reruns that part alone and writes the
# URL. Sections 2 and 5 have their own controls and are fragments too; sections 3 and 4 have none.
@link.fragment
def stages_section() -> None:
    # --- Settings ---------------------------------------------------------------------------------------
    mode = st.radio(t("il.table"), MODES, format_func=lambda m: t(f"il.mode_{m}"), key="il_mode", horizontal=True)
    c1, c2 = st.columns(2)
    sentence = c1.text_input(t("il.sentence"), key="il_sentence")
    pair = c2.text_input(t("il.pair"), key="il_pair")
    c1, c2, c3, c4 = st.columns([1.25, 1, 1, 1.25])  # toggles cut their labels rather than wrap them
    scale = c1.toggle("× √d_model", key="il_scale", disabled=mode == "minilm", help=t("il.scale_help"))
    position = c1.radio(
        t("il.positions"),
        CHOICES["position"],
        format_func=lambda p: t(f"il.position_{p}"),
        key="il_position",
        disabled=mode == "minilm",
    )
    d_model = c2.select_slider("d_model", CHOICES["d_model"], key="il_d_model", disabled=mode != "random")
    max_len = int(c2.number_input("max_len", *CHOICES["max_len"], step=1, key="il_max_len"))
    dropout = c3.slider(t("il.dropout"), *CHOICES["dropout"], key="il_dropout", disabled=mode == "minilm")
    training = c4.toggle(t("il.training"), key="il_train", disabled=mode == "minilm", help=t("il.training_help"))

    # --- 1. Tokens and stages -----------------------------------------------------------------------------
    st.header(t("il.h_stages"))
    if not sentence.strip():
        st.error(t("il.no_sentence"))
    elif mode == "minilm":
        try:
            real = minilm_input()
        except pretrained.PretrainedMissing as err:
            st.info(t("il.minilm_missing", problem=problem(err)))
        else:
            tokens, ids, types = real.encode(sentence, pair or None)
            if len(ids) > max_len:
                st.warning(
                    t(
                        "il.cut_wordpiece",
                        n=len(ids),
                        max_len=max_len,
                        last=tokens[max_len - 1],
                        dropped=", ".join(tokens[max_len:]),
                    )
                )
                tokens, ids, types = tokens[:max_len], ids[:max_len], types[:max_len]
            table(pd.DataFrame({"token": tokens, "id": ids.tolist(), "segment": types.tolist()}), "tokens")
            st.caption(t("il.wordpiece_caption"))
            show_stages(real.stages(ids, types), tokens)
            show_code(pretrained.MiniLMInput.stages)
    else:
        wv = None
        if mode == "glove":
            try:
                wv = bundled_vectors()
            except VectorsError as err:
                st.warning(t("il.glove_missing", problem=problem(err)))
        if wv is not None and d_model != wv.dim:
            st.info(t("il.glove_dim", dim=wv.dim, d_model=d_model))
        sentences = [sentence] + ([pair] if pair.strip() else [])
        layer, itos, toks = emb.build_input_layer(
            sentences,
            wv,
            d_model=d_model,
            max_len=max_len,
            position=position,
            scale=scale,
            dropout=dropout,
            device=device(),
        )
        words = [w for tok in toks for w in tok.tokens]
        ids = [i for tok in toks for i in tok.ids]
        segments = [s for s, tok in enumerate(toks) for _ in tok.ids]
        unknown = [w for tok in toks for w in tok.unknown]
        if unknown and len(unknown) == len(words):
            st.warning(t("il.all_unknown"))
        elif unknown:
            st.warning(t("il.some_unknown", words=", ".join(unknown)))
        if len(ids) > max_len:
            st.warning(
                t("il.cut", n=len(ids), max_len=max_len, last=words[max_len - 1], dropped=", ".join(words[max_len:]))
            )
            words, ids, segments = words[:max_len], ids[:max_len], segments[:max_len]
        table(pd.DataFrame({"token": words, "id": ids, "segment": segments}), "tokens")
        layer.train(training)
        with torch.no_grad():
            stages = layer(torch.tensor([ids], device=device()), torch.tensor([segments], device=device()), stages=True)
        show_stages({k: v[0] for k, v in stages.items()}, words)
        show_code(emb.TokenEmbedding, emb.InputLayer.forward)


stages_section()
explain(
    r"x = \mathrm{Dropout}\big(\mathrm{LayerNorm}(E[\text{id}] \cdot \sqrt{d_{model}} + P_{pos} + S_{seg})\big)",
    t("il.stages_notice"),
)

# --- 2. Why sqrt(d_model) -------------------------------------------------------------------------------
st.header(t("il.h_sqrt"))


@link.fragment
def sqrt_section() -> None:
    init = st.radio(t("il.init"), CHOICES["init"], key="il_init", horizontal=True, help=t("il.init_help"))
    shown = {key_text(name): values for name, values in norms(init).items()}
    st.plotly_chart(lines_figure(shown, t("il.norms_title"), "d_model", "‖v‖", x=SIZES, log_x=True, log_y=True))


sqrt_section()
explain(
    r"\lVert PE_{pos} \rVert = \sqrt{d/2},\qquad \lVert e \rVert \approx \sigma\sqrt{d}",
    t("il.sqrt_notice"),
)

# --- 3. Padding ----------------------------------------------------------------------------------------
st.header(t("il.h_padding"))
batch, vectors, grad = padding_demo()
c1, c2, c3 = st.columns(3)
table(pd.DataFrame(batch.numpy(), index=["I love you", "He eats"]), "padded_batch", where=c1, array=batch)
table(four_decimals(vectors[1], ["He", "eats", "<pad>"]), "padded_vectors", where=c2, array=vectors)
table(four_decimals(grad[:6], [t("il.row", i=i) for i in range(6)]), "padding_gradient", where=c3, array=grad)
st.caption(t("il.padding_caption"))
show_code(emb.padding_gradients)

# --- 4. Are you OK ? -----------------------------------------------------------------------------------
st.header(t("il.h_ok"))
pe = sinusoidal_encoding(5, 4, device=device())
c1, c2, c3 = st.columns(3)
table(four_decimals(emb.ARE_YOU_OK, emb.ARE_YOU_OK_WORDS), "are_you_ok", where=c1, array=emb.ARE_YOU_OK)
table(four_decimals(pe, [f"pos {i}" for i in range(5)]), "are_you_ok_pe", where=c2, array=pe)
ok_sum = emb.ARE_YOU_OK.to(pe) + pe[:4]
table(four_decimals(ok_sum, emb.ARE_YOU_OK_WORDS), "are_you_ok_sum", where=c3, array=ok_sum)
st.caption(t("il.ok_caption"))

# --- 5. Weight tying -----------------------------------------------------------------------------------
st.header(t("il.h_tying"))


@link.fragment
def tying_section() -> None:
    c1, c2 = st.columns(2)
    vocab = int(c1.number_input(t("il.vocab"), *CHOICES["vocab"], step=1000, key="il_vocab"))
    tie_d = int(c2.number_input("d_model", *CHOICES["tie_d"], step=64, key="il_tie_d"))
    counts = pd.DataFrame(emb.parameter_counts(vocab, tie_d))
    counts = counts.rename(index=key_text, columns=key_text)
    st.dataframe(counts.map(lambda n: f"{n:,}"))
    downloads("parameters", frame=counts)


tying_section()
explain(
    r"W_{out} = E^\top",
    t("il.tying_notice"),
)

# --- Try this ---------------------------------------------------------------------------------------
try_this("il")
