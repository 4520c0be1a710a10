"""Overview: the path from text to the vectors a Transformer reads, one step per page, and what each page covers."""

import pandas as pd
import streamlit as st

from ui import LESSONS, table
from ui.i18n import t

STEPS = ["il", "we", "es", "pe", "rp", "lv"]  # the lesson teaching each step, in the order of the path
FORMULAS = [
    r"x_{pos} = E[\text{id}_{pos}] \cdot \sqrt{d_{model}} + PE_{pos}",
    r"PE_{(pos,\,2i)} = \sin\!\left(pos / 10000^{2i/d_{model}}\right),\quad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(pos / 10000^{2i/d_{model}}\right)",
    r"\cos(u, v) = \frac{u \cdot v}{\lVert u \rVert\,\lVert v \rVert},\qquad "
    r"\text{king} - \text{man} + \text{woman} \approx \text{queen}",
    r"h = \mathrm{Dropout}\big(\mathrm{LayerNorm}(E[\text{id}] + P_{pos} + S_{seg})\big)",
    r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j q_j \overline{k_j}\, e^{i(m-n)\theta_j}\Big],\quad \theta_j = base^{-2j/d}",
]
SEEDS = {  # seed -> the lessons that teach it
    "seed000": ["il", "pe"],
    "seed002": ["lv"],
    "seed003": ["we", "il"],
    "seed004": ["il", "es", "lv", "rp"],
}

st.title(t("ov.title"))
st.markdown(t("ov.intro"))

for step, lesson in enumerate(STEPS, start=1):
    st.subheader(t(f"ov.step{step}"))
    st.markdown(t(f"ov.step{step}_text"))
    script, icon = LESSONS[lesson]
    st.page_link(script, label=t(f"app.{lesson}"), icon=icon)

st.header(t("ov.formulas"))
for formula in FORMULAS:
    st.latex(formula)

st.header(t("ov.seeds"))
seeds = pd.DataFrame(
    {
        t("ov.seed_col"): [t(f"ov.{s}") for s in SEEDS],
        t("ov.pages_col"): [", ".join(t(f"app.{k}") for k in p) for p in SEEDS.values()],
    }
)
table(seeds.set_index(t("ov.seed_col")), "seeds", plain=True)
st.info(t("ov.present_tip"), icon=":material/co_present:")
