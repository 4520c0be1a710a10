"""The embedding-space page: time to first plot, bytes per chart, and the browser's isolate round trip.

1. Time to first plot, in this process, the way the page does it: the cloud's rows, the projection, the
   figure and its JSON (what Streamlit sends). Each method's first run in a process is cold (imports, and
   numba compiling for UMAP), so PCA and UMAP are timed twice. 5,000 words with PCA, t-SNE (openTSNE, the page's choice,
   against scikit-learn's TSNE on the same points and settings) and UMAP (first run in a process,
   which compiles numba code, then a second); 20,000 words with PCA.
2. Bytes per chart: the figure JSON for 20,000 words in 2D and 3D with the page's default groups.
3. Chromium against the real server: seconds from clicking "Isolate" until the plot shows only the word and
   its neighbours, and back.
Run: .venv/bin/python benchmarks/cloud.py [--skip-slow] [--clicks 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core import cloud  # noqa: E402
from core.cloud import GROUPS, CloudConfig  # noqa: E402
from core.glove import load_glove  # noqa: E402
from figures.cloud import cloud_figure  # noqa: E402
from labtools.browser import launch_chromium, wait_for_plot, wait_until_idle  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402

CHOSEN = ["man", "woman", "king", "queen"]
DEFAULT_GROUPS = ("animals", "countries", "capitals", "numbers")


def first_plot(wv, size: int, cfg: CloudConfig) -> tuple[float, int]:
    """Seconds from the settings to the figure's JSON, and the JSON's size in bytes."""
    start = time.perf_counter()
    groups = {name: list(GROUPS[name]) for name in DEFAULT_GROUPS}
    rows, _ = cloud.cloud_rows(wv, size, CHOSEN + [w for ws in groups.values() for w in ws])
    coords = cloud.project(wv.vectors[rows].numpy(), cfg)
    words = [wv.itos[r] for r in rows]
    index = {w: i for i, w in enumerate(words)}
    fig = cloud_figure(
        coords,
        words,
        chosen=[index[w] for w in CHOSEN],
        groups={name: [index[w] for w in ws] for name, ws in groups.items()},
    )
    payload = fig.to_json()
    return time.perf_counter() - start, len(payload.encode())


def sklearn_tsne(wv, size: int) -> float:
    from sklearn.manifold import TSNE

    x = wv.vectors[:size].numpy().astype(np.float64)
    start = time.perf_counter()
    TSNE(2, perplexity=30, learning_rate="auto", max_iter=750, init="pca", random_state=0).fit_transform(x)
    return time.perf_counter() - start


def isolate_clicks(clicks: int) -> list[float]:
    port = free_port()
    server = start_server(port)
    traces = "document.querySelector('.js-plotly-plot').data.length"
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
            context = launch_chromium(p, profile)
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.goto(f"http://127.0.0.1:{port}/embedding_space")
            page.wait_for_selector(".js-plotly-plot")
            box = page.get_by_role("textbox", name="Word", exact=True)
            box.fill("queen")
            box.press("Enter")
            wait_for_plot(page, f"{traces} > 2")
            wait_until_idle(page)
            times = []
            for _ in range(clicks):
                before = page.evaluate(traces)
                start = time.perf_counter()
                page.get_by_text("Isolate", exact=True).click()
                page.wait_for_function(f"{traces} !== {before}", polling=5)
                times.append(time.perf_counter() - start)
                wait_until_idle(page)
            context.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-slow", action="store_true", help="no t-SNE or UMAP timings")
    parser.add_argument("--clicks", type=int, default=10)
    args = parser.parse_args()
    wv = load_glove()
    print("1. Time to first plot (rows + projection + figure JSON), this machine's CPU")
    cases = [(5000, CloudConfig("PCA")), (5000, CloudConfig("PCA")), (20_000, CloudConfig("PCA"))]  # 1st: cold
    if not args.skip_slow:
        cases += [(5000, CloudConfig("t-SNE")), (5000, CloudConfig("UMAP")), (5000, CloudConfig("UMAP"))]
    for size, cfg in cases:
        seconds, size_bytes = first_plot(wv, size, cfg)
        print(f"   {size:>6,} words, {cfg.method:<5}  {seconds:7.1f} s   ({size_bytes / 1e6:.2f} MB of JSON)")
    if not args.skip_slow:
        theirs = sklearn_tsne(wv, 5000)
        print(f"   scikit-learn TSNE, same 5,000 words, 750 iterations: {theirs:.1f} s (the page uses openTSNE)")
    print("2. Bytes per chart, 20,000 words + 4 groups + 4 chosen words")
    for dims in (2, 3):
        _, size_bytes = first_plot(wv, 20_000, CloudConfig("PCA", dims))
        print(f"   {dims}D: {size_bytes / 1e6:.2f} MB (limit 2 MB)")
    print(f"3. Chromium: click 'Isolate' -> plot updated, {args.clicks} clicks alternating on / off, 5,000-word cloud")
    times = isolate_clicks(args.clicks)
    print(f"   median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
