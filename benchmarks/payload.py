"""Bytes sent per chart on the PE page, at many settings, via AppTest: each message as sent, chapter by chapter:
the window charts' (ui.live_chart: the figure's JSON, the block of the table and the window) and st.plotly_chart's.

Also prints what a naive figure of the whole table would weigh at the largest setting (100,000 x 4,096):
measured on 1,000 rows, as plotly's base64 array and as a plain JSON list, and scaled by 100.
Run: .venv/bin/python benchmarks/payload.py
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import plotly.graph_objects as go

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from streamlit.testing.v1 import AppTest  # noqa: E402

from core.positional import PEConfig, pe_window  # noqa: E402

SETTINGS = {
    "defaults": {},
    "the paper, 512 x 100": {"pe_d_model": 512},
    "largest table, default windows": {"pe_max_len": 100_000, "pe_d_model": 4096},
    "largest table, widest windows": {
        "pe_max_len": 100_000,
        "pe_d_model": 4096,
        "pe_pos_span": 1000,
        "pe_dim_span": 1024,
        "pe_curve_span": 2000,
        "pe_sim_span": 500,
    },
}
LIMIT = 2_000_000


def chart_bytes(changes: dict) -> dict[str, int]:
    """{chart's key: bytes of its message} for every chart of the chapters that draw charts."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page("lessons/positional_encoding/positional_encoding.py").run()
    sizes = {}
    for chapter in ("table", "wavelengths", "similarity"):
        for key, value in {**changes, "pe_chapter": chapter}.items():
            at.session_state[key] = value
        at.run()
        assert not at.exception, at.exception
        for element in at.get("bidi_component"):
            if element.proto.component_name == "live_chart":  # not the sidebar's share popover
                sizes[element.proto.id.rsplit("-", 1)[-1]] = element.proto.ByteSize()
        for element in at.get("plotly_chart"):  # the charts without a window (wavelengths, offsets)
            sizes[element.proto.id.rsplit("-", 1)[-1]] = element.proto.ByteSize()
    return sizes


def main() -> None:
    logging.disable(logging.WARNING)  # AppTest's session_state writes outside a run: "missing ScriptRunContext"
    worst = 0
    for name, changes in SETTINGS.items():
        sizes = chart_bytes(changes)
        worst = max(worst, *sizes.values())
        print(f"{name}: " + ", ".join(f"{chart} {size / 1e3:.1f} kB" for chart, size in sizes.items()))
    print(f"largest chart: {worst / 1e6:.2f} MB (limit {LIMIT / 1e6:.0f} MB): {'OK' if worst <= LIMIT else 'OVER'}")

    rows = pe_window(PEConfig(4096, 100_000), 0, 1000).numpy()  # (1000, 4096) of the 100,000 rows
    b64 = len(go.Figure(go.Heatmap(z=rows)).to_json())
    plain = len(go.Figure(go.Heatmap(z=rows.tolist())).to_json())
    print(
        f"naive whole-table heatmap at 100,000 x 4,096: {b64 * 100 / 1e9:.2f} GB as base64 float32, "
        f"{plain * 100 / 1e9:.2f} GB as a JSON list (measured on 1,000 rows, x100)"
    )


if __name__ == "__main__":
    main()
