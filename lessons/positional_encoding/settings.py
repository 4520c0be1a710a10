"""The positional-encoding page's settings, declared once (`SETTINGS`): a preset from a well-known explanation,
d_model, max_len, the base and the layout (the PEConfig they make), the A pinned to compare with, the chapter, the
windows on the table, the curves and the similarity (`WindowConfig`), the dimensions plotted, the similarity's metric
and the shift checked. This module declares and draws nothing: the page draws the widgets and applies the presets;
the windows are placed by lessons.positional_encoding.tables (whose table window's choices of columns follow d_model:
table_window_on)."""

from __future__ import annotations

from dataclasses import dataclass

from core.positional import LAYOUTS, PEConfig
from figures.positional import HEATMAP_MAX_CELLS
from ui.settings import Setting, Settings


@dataclass(frozen=True)
class WindowConfig:
    """The sliders of a window on a table: how many rows it shows and from which row, and, for a window over the
    columns too, how many columns and from which. A window over the rows alone shows every column, or, when
    `tied`, the same indices as its rows (a square on the diagonal of positions against positions).

    keys: the values' keys in the session (each one the setting's name in the link): rows shown, first row[,
        columns shown, first column].
    labels: their sliders' labels, in `keys`' order (locale keys, or names shown as they are: ui.settings.Setting).
    spans: the choices of rows shown (and of columns shown); the first of `defaults` is the rows' default.
    max_cells: the most cells drawn, if any: a wide window shows fewer rows (tables.window_fit).
    lines: the chart draws each column as a line along the rows (a trace per column), not a heatmap.
    """

    keys: tuple[str, ...]
    labels: tuple[str, ...]
    spans: tuple[tuple[int, ...], ...]
    defaults: tuple[int, ...]
    max_cells: int | None = None
    tied: bool = False
    lines: bool = False

    def settings(self) -> tuple[Setting, ...]:
        """The window's values as the page declares them (ui.settings), kept in the link by tables.window_link: each
        span one of its choices, each first index a whole number."""
        return tuple(
            Setting(key, "window", self.default(key), label, options=self.spans[i // 2] if i % 2 == 0 else (), low=0)
            for i, (key, label) in enumerate(zip(self.keys, self.labels, strict=True))
        )

    def default(self, key: str) -> int:
        """A key's value when the link does not give it: a span's default, or 0 for a first index."""
        i = self.keys.index(key)
        return self.defaults[i // 2] if i % 2 == 0 else 0


BASE = f"{PEConfig.base:g}"  # the text box's default, "10000"
# The lesson's chapters, shown one at a time: after a fragment runs, Streamlit redraws every element on the page,
# so the delay after a slider move grows with the page's length (benchmarks/rerun.py).
CHAPTERS = ("table", "wavelengths", "similarity", "checks", "model", "exercises")
TABLE_WINDOW = WindowConfig(
    keys=("pe_pos_span", "pe_pos_start", "pe_dim_span", "pe_dim_start"),
    labels=("pe.pos_span", "pe.pos_start", "pe.dim_span", "pe.dim_start"),
    spans=((10, 20, 50, 100, 200, 500, 1000), (8, 16, 32, 64, 128, 256, 512, 1024)),
    defaults=(100, 512),
    max_cells=HEATMAP_MAX_CELLS,
)  # its choices of dimensions shown, cut at the table's width: tables.table_window_on
CURVES_WINDOW = WindowConfig(
    keys=("pe_curve_span", "pe_curve_start"),
    labels=("pe.curve_span", "pe.from_position"),
    spans=((20, 50, 100, 200, 500, 1000, 2000),),
    defaults=(100,),
    lines=True,
)
SIMILARITY_WINDOW = WindowConfig(
    keys=("pe_sim_span", "pe_sim_start"),
    labels=("pe.sim_span", "pe.from_position"),
    spans=((10, 20, 50, 100, 200, 500),),
    defaults=(100,),
    tied=True,
)
METRICS = ("dot", "cosine")
PRESETS = {  # shown as t("pe.preset_<name>"); each sets the page's pe_<name> widgets
    "custom": {},
    "paper": dict(d_model=512, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "annotated": dict(d_model=20, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "kazemnejad": dict(d_model=128, max_len=50, base="10000", layout="interleaved", dims="0, 1, 10, 11"),
    "illustrated": dict(d_model=512, max_len=20, base="10000", layout="concatenated", dims="0, 255, 256, 511"),
    "explainer": dict(d_model=768, max_len=40, base="10000", layout="interleaved", dims="0, 1, 2, 3"),
}

# Every setting of the page, in the order it draws them. The sizes' boxes have no min or max: PEConfig checks them and
# the page says what to change (and keeps the last valid). Streamlit would write a bound radio's or chapter's label,
# in the reader's language, into the link: the layouts, chapters and metrics are shown translated and kept in the
# link by hand, as core names them (`translated`: ?pe_layout=concatenated, as old links say).
SETTINGS = Settings(
    "pe",
    (
        # the preset is not in the link: the settings it sets are
        Setting("pe_preset", "selectbox", "custom", "pe.preset", options=tuple(PRESETS), option_text="pe.preset_{}",
                in_link=False),
        Setting("pe_d_model", "number_input", PEConfig.d_model, "d_model", step=1),
        Setting("pe_max_len", "number_input", PEConfig.max_len, "pe.max_len", step=1),
        Setting("pe_base", "text_input", BASE, "base", help="pe.base_help"),
        Setting("pe_base_pick", "pills", None, "pe.common_bases", options=("100", "10000", "500000"), in_link=False),
        Setting("pe_layout", "radio", PEConfig.layout, "pe.layout", options=LAYOUTS, option_text="pe.layout_{}",
                translated=True, help="pe.layout_help"),
        Setting("pe_a", "pinned", None, "ui.ab_pin"),  # ui.compare.pin_ui: A, these settings pinned
        *TABLE_WINDOW.settings(),
        *CURVES_WINDOW.settings(),
        *SIMILARITY_WINDOW.settings(),
        Setting("pe_chapter", "segmented_control", CHAPTERS[0], "pe.chapter", options=CHAPTERS,
                option_text="pe.ch_{}", translated=True),
        Setting("pe_dims", "text_input", "4, 5, 6, 7", "pe.dims"),  # the columns the curves plot by default
        Setting("pe_sim_metric", "radio", METRICS[0], "pe.similarity", options=METRICS, option_text="pe.metric_{}",
                translated=True),
        Setting("pe_shift_k", "number_input", 5, "pe.shift_k", step=1),
    ),
)  # fmt: skip
