"""Overview: the path from text to the vectors a Transformer reads, one step per page, and what each page covers."""

import pandas as pd
import streamlit as st

from ui.explain import breakable
from ui.i18n import t
from ui.pages import PATH, page_link
from ui.tables import table

FORMULAS = [
    r"x_{pos} = E[\text{id}_{pos}] \cdot \sqrt{d_{model}} + PE_{pos}",
    r"PE_{(pos,\,2i)} = \sin\!\left(pos / 10000^{2i/d_{model}}\right),\quad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(pos / 10000^{2i/d_{model}}\right)",
    r"\cos(u, v) = \frac{u \cdot v}{\lVert u \rVert\,\lVert v \rVert},\qquad "
    r"\text{king} - \text{man} + \text{woman} \approx \text{queen}",
    r"h = \mathrm{Dropout}\big(\mathrm{LayerNorm}(E[\text{id}] + P_{pos} + S_{seg})\big)",
    r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j q_j \overline{k_j}\, e^{i(m-n)\theta_j}\Big],\quad \theta_j = base^{-2j/d}",
]

st.title(t("ov.title"))
st.markdown(t("ov.intro"))

st.header(t("ov.path"))
for step, lesson in enumerate(PATH, start=1):  # each step's heading is the title of the page its link opens
    st.subheader(f"{step}. {lesson.title}")
    st.markdown(f"**{t(f'ov.{lesson.key}')}**: " + t(f"ov.{lesson.key}_text"))
    page_link(lesson.key)

st.header(t("ov.formulas"))
for formula in FORMULAS:
    st.latex(breakable(formula))

st.header(t("ov.seeds"))
seeds = sorted({seed for lesson in PATH for seed in lesson.seeds})
rows = {t(f"ov.{seed}"): ", ".join(lesson.title for lesson in PATH if seed in lesson.seeds) for seed in seeds}
frame = pd.DataFrame({t("ov.pages_col"): rows.values()}, index=pd.Index(rows.keys(), name=t("ov.seed_col")))
table(frame, "seeds", plain=True)
st.info(t("ov.present_tip"), icon=":material/co_present:")
