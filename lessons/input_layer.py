"""The input layer, stage by stage: token x sqrt(d_model) + position + segment -> LayerNorm -> dropout."""

import pandas as pd
import streamlit as st
import torch

from core import embeddings as emb
from core import pretrained
from core.positional import sinusoidal_encoding
from figures.positional import pe_heatmap_figure
from figures.training import lines_figure
from ui import bundled_vectors, explain, set_defaults, show_code

MODES = ("GloVe 6B 50d", "random table", "all-MiniLM-L6-v2 (real)")
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


@st.cache_resource(show_spinner="Reading all-MiniLM-L6-v2's input layer…")
def minilm() -> pretrained.MiniLMInput:
    return pretrained.MiniLMInput()


def show_stages(stages: dict[str, torch.Tensor], tokens: list[str]) -> None:
    for name, values in stages.items():
        labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
        figure = pe_heatmap_figure(values.detach().cpu().numpy(), title=name, zmax=None, row_labels=labels)
        st.plotly_chart(figure, key=f"il_stage_{name}")


def four_decimals(values: torch.Tensor, rows: list[str]) -> pd.DataFrame:
    return pd.DataFrame(values.numpy(), index=rows).round(4)


set_defaults("il", DEFAULTS)

st.title("The input layer, stage by stage")
st.markdown(
    "Before the first attention layer a Transformer turns ids into vectors: look each token up, scale it by "
    "√d_model, add its position (and, in BERT, its segment), normalise, drop out. Here is every stage."
)

# --- Settings ---------------------------------------------------------------------------------------
mode = st.radio("Table", MODES, key="il_mode", horizontal=True)
c1, c2 = st.columns(2)
sentence = c1.text_input("Sentence (segment A)", key="il_sentence")
pair = c2.text_input("Second sentence (segment B, optional)", key="il_pair")
c1, c2, c3, c4 = st.columns(4)
scale = c1.toggle("× √d_model", key="il_scale", disabled=mode == MODES[2], help="BERT does not scale.")
position = c1.radio("Positions", ["sinusoidal", "learned"], key="il_position", disabled=mode == MODES[2])
d_model = c2.select_slider("d_model", [4, 8, 16, 32, 64, 128, 256, 512], key="il_d_model", disabled=mode != MODES[1])
max_len = int(c2.number_input("max_len", min_value=1, max_value=512, step=1, key="il_max_len"))
dropout = c3.slider("Dropout p", 0.0, 0.9, key="il_dropout", disabled=mode == MODES[2])
training = c4.toggle("Training mode (dropout on)", key="il_train", disabled=mode == MODES[2])

# --- 1. Tokens and stages -----------------------------------------------------------------------------
st.header("1. Tokens → ids → vectors, one heatmap per stage")
if not sentence.strip():
    st.error("Type a sentence, for example: Are you OK ?")
elif mode == MODES[2]:
    try:
        real = minilm()
    except pretrained.PretrainedMissing as err:
        st.info(f"{err} The GloVe and random tables still work.")
    else:
        tokens, ids, types = real.encode(sentence, pair or None)
        if len(ids) > max_len:
            st.warning(
                f"{len(ids)} WordPiece tokens, max_len {max_len}: cut after “{tokens[max_len - 1]}”; "
                f"{', '.join(tokens[max_len:])} dropped."
            )
            tokens, ids, types = tokens[:max_len], ids[:max_len], types[:max_len]
        st.dataframe(pd.DataFrame({"token": tokens, "id": ids.tolist(), "segment": types.tolist()}), height=160)
        st.caption(
            "WordPiece splits rare words into pieces (##...); [CLS] starts, [SEP] ends each segment. "
            "Dropout is off: the model is in eval mode, as when it is used."
        )
        show_stages(real.stages(ids, types), tokens)
        show_code(pretrained.MiniLMInput.stages)
else:
    wv = bundled_vectors() if mode == MODES[0] else None
    if wv is not None and d_model != wv.dim:
        st.info(
            f"GloVe 6B 50d vectors have {wv.dim} dimensions, so d_model is {wv.dim} here: a projection to "
            f"{d_model} would be an untrained matrix. Choose 'random table' to set d_model."
        )
    sentences = [sentence] + ([pair] if pair.strip() else [])
    layer, itos, toks = emb.build_input_layer(
        sentences, wv, d_model=d_model, max_len=max_len, position=position, scale=scale, dropout=dropout
    )
    words = [w for t in toks for w in t.tokens]
    ids = [i for t in toks for i in t.ids]
    segments = [s for s, t in enumerate(toks) for _ in t.ids]
    unknown = [w for t in toks for w in t.unknown]
    if unknown and len(unknown) == len(words):
        st.warning("No word is in GloVe's vocabulary: every token is <unk>, a zero vector; only positions remain.")
    elif unknown:
        st.warning(f"Not in GloVe's vocabulary, mapped to <unk> (id 1, a zero row): {', '.join(unknown)}.")
    if len(ids) > max_len:
        st.warning(
            f"{len(ids)} tokens, max_len {max_len}: cut after “{words[max_len - 1]}”; "
            f"{', '.join(words[max_len:])} dropped."
        )
        words, ids, segments = words[:max_len], ids[:max_len], segments[:max_len]
    st.dataframe(pd.DataFrame({"token": words, "id": ids, "segment": segments}), height=160)
    layer.train(training)
    with torch.no_grad():
        stages = layer(torch.tensor([ids]), torch.tensor([segments]), stages=True)
    show_stages({k: v[0] for k, v in stages.items()}, words)
    show_code(emb.TokenEmbedding, emb.InputLayer.forward)
explain(
    r"x = \mathrm{Dropout}\big(\mathrm{LayerNorm}(E[\text{id}] \cdot \sqrt{d_{model}} + P_{pos} + S_{seg})\big)",
    "After LayerNorm every token has mean 0 and variance 1 across its dimensions; in training, dropout zeroes "
    "a fraction p of the values and scales the rest by 1/(1−p).",
)

# --- 2. Why sqrt(d_model) -------------------------------------------------------------------------------
st.header("2. Why multiply by √d_model?")
init = st.radio(
    "Token table initialised with",
    ["normal", "xavier"],
    key="il_init",
    horizontal=True,
    help="normal: nn.Embedding's default N(0, 1). xavier: the Annotated Transformer's xavier_uniform_.",
)
sizes = [8, 16, 32, 64, 128, 256, 512, 1024]
norms = emb.norms_against_d_model(sizes, init)
st.plotly_chart(
    lines_figure(norms, "Mean vector norm against d_model", "d_model", "‖v‖", x=sizes, log_x=True, log_y=True)
)
explain(
    r"\lVert PE_{pos} \rVert = \sqrt{d/2},\qquad \lVert e \rVert \approx \sigma\sqrt{d}",
    "With a small (xavier) initialisation the token vector is far smaller than the position vector it is added "
    "to; multiplying by √d_model brings it to the same scale, as seed 000 argues.",
)

# --- 3. Padding ----------------------------------------------------------------------------------------
st.header("3. Padding: padding_idx = 0")
batch = emb.pad_batch([[1, 2, 3], [4, 5]])
vectors, grad = emb.padding_gradients(batch, vocab_size=10, d_model=3)
c1, c2, c3 = st.columns(3)
c1.dataframe(pd.DataFrame(batch.numpy(), index=["I love you", "He eats"]))
c2.dataframe(four_decimals(vectors[1], ["He", "eats", "<pad>"]))
c3.dataframe(four_decimals(grad[:6], [f"row {i}" for i in range(6)]))
st.caption(
    "Left: the batch padded to length 3. Middle: “He eats” embedded: the <pad> row is zero. Right: the "
    "table's gradient after one backward pass of the sum: row 0 (<pad>) is zero, so it never moves."
)
show_code(emb.padding_gradients)

# --- 4. Are you OK ? -----------------------------------------------------------------------------------
st.header("4. “Are you OK ?” (seed 003)")
pe = sinusoidal_encoding(5, 4)
c1, c2, c3 = st.columns(3)
c1.dataframe(four_decimals(emb.ARE_YOU_OK, emb.ARE_YOU_OK_WORDS))
c2.dataframe(four_decimals(pe, [f"pos {i}" for i in range(5)]))
c3.dataframe(four_decimals(emb.ARE_YOU_OK + pe[:4], emb.ARE_YOU_OK_WORDS))
st.caption("The seed's word matrix, its positional encoding (embed_dim 4, max_pos 5) and their sum, to 4 decimals.")

# --- 5. Weight tying -----------------------------------------------------------------------------------
st.header("5. Weight tying")
c1, c2 = st.columns(2)
vocab = int(c1.number_input("Vocabulary", min_value=2, max_value=1_000_000, step=1000, key="il_vocab"))
tie_d = int(c2.number_input("d_model", min_value=1, max_value=16384, step=64, key="il_tie_d"))
st.dataframe(pd.DataFrame(emb.parameter_counts(vocab, tie_d)).map(lambda n: f"{n:,}"))
explain(
    r"W_{out} = E^\top",
    "The paper shares one matrix between the two embedding layers and the output projection (×√d_model in "
    "the embeddings): a third of the parameters, and a 37,000-word vocabulary at d_model 512 is 19M of them.",
)
