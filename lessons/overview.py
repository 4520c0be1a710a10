"""Overview: the path from text to the vectors a Transformer reads, one step per page, and what each page covers."""

import pandas as pd
import streamlit as st

from ui import table
from ui.i18n import t

STEPS = [  # (step, the page that teaches it, the page's title key, its icon)
    ("step1", "lessons/input_layer.py", "app.il", ":material/stacks:"),
    ("step2", "lessons/word_embeddings.py", "app.we", ":material/translate:"),
    ("step3", "lessons/embedding_space.py", "app.es", ":material/scatter_plot:"),
    ("step4", "lessons/positional_encoding.py", "app.pe", ":material/waves:"),
    ("step5", "lessons/rotary.py", "app.rp", ":material/autorenew:"),
    ("step6", "lessons/learned_vs_sinusoidal.py", "app.lv", ":material/straighten:"),
]
FORMULAS = [
    r"x_{pos} = E[\text{id}_{pos}] \cdot \sqrt{d_{model}} + PE_{pos}",
    r"PE_{(pos,\,2i)} = \sin\!\left(pos / 10000^{2i/d_{model}}\right),\quad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(pos / 10000^{2i/d_{model}}\right)",
    r"\cos(u, v) = \frac{u \cdot v}{\lVert u \rVert\,\lVert v \rVert},\qquad "
    r"\text{king} - \text{man} + \text{woman} \approx \text{queen}",
    r"h = \mathrm{Dropout}\big(\mathrm{LayerNorm}(E[\text{id}] + P_{pos} + S_{seg})\big)",
    r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j q_j \overline{k_j}\, e^{i(m-n)\theta_j}\Big],\quad \theta_j = base^{-2j/d}",
]
SEEDS = {  # seed -> the pages (their title keys) that teach it
    "seed000": ["app.il", "app.pe"],
    "seed002": ["app.lv"],
    "seed003": ["app.we", "app.il"],
    "seed004": ["app.il", "app.es", "app.lv", "app.rp"],
}

st.title(t("ov.title"))
st.markdown(t("ov.intro"))

for step, page, title, icon in STEPS:
    st.subheader(t(f"ov.{step}"))
    st.markdown(t(f"ov.{step}_text"))
    st.page_link(page, label=t(title), icon=icon)

st.header(t("ov.formulas"))
for formula in FORMULAS:
    st.latex(formula)

st.header(t("ov.seeds"))
seeds = pd.DataFrame(
    {t("ov.seed_col"): [t(f"ov.{s}") for s in SEEDS], t("ov.pages_col"): [", ".join(map(t, p)) for p in SEEDS.values()]}
)
table(seeds.set_index(t("ov.seed_col")), "seeds", plain=True)
st.info(t("ov.present_tip"), icon=":material/co_present:")
