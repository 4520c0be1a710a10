"""What the embedding-space page's honesty measures cost, and what they add to a rerun.

1. The page's measures of a new projection, for clouds of --sizes words (the bundled GloVe's most frequent, PCA in 2D,
   k = 10): neighbours kept and trustworthiness at k (lessons.embedding_space.honesty's measure: in the rerun up to lessons.embedding_space.honesty.INLINE_MOST
   points, a background job above), and both at k = 5, 10, 30, 100 (one method's curve). Median of --repeats calls
   after a warm-up.
2. Every other rerun (a cache hit) at the page's first cloud (the 5,000 most frequent words plus its chosen and
   grouped words outside them, 5,010 points): the page's cached lookups (measure and curve, keyed by the vectors'
   source, the number of frequent words and the few added rows, the CloudConfig and k), median of --repeats; beside
   it the same lookups keyed by every one of the 5,010 rows, which Streamlit hashes one by one.
3. The page's whole rerun in AppTest (no browser) at its defaults, median of --repeats reruns after the first run
   (which computed the measures): what 2. is a part of.
One thread per torch op (OMP_NUM_THREADS=1), as the server runs.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/honesty.py [--sizes 5000 20000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one CPU thread per torch op, as the server runs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.attention import median_ms  # noqa: E402
from core import cloud, neighbours  # noqa: E402
from core.exercises import default_cloud_points  # noqa: E402
from lessons.embedding_space import honesty  # noqa: E402
from ui.vectors import bundled_vectors  # noqa: E402

PAGE = "lessons/embedding_space/embedding_space.py"


def page_rerun(repeats: int) -> float:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception and len(at.metric) == 2, at.exception
    return median_ms(at.run, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # bare mode's "missing ScriptRunContext"
    wv = bundled_vectors()
    cfg, k = cloud.CloudConfig(), neighbours.K
    print(f"{wv.name}, PCA 2D, k = {k}; measured in the rerun up to {honesty.INLINE_MOST:,} points, as a job above")
    for n in args.sizes:
        x = wv.vectors[:n].numpy()
        y = cloud.project(x, cfg)
        repeats = args.repeats if n <= honesty.INLINE_MOST else 1
        measure = median_ms(lambda x=x, y=y: honesty._measure(x, y, k, True), repeats)
        curve = median_ms(lambda x=x, y=y: honesty._measure_curve(x, y, neighbours.CURVE_KS), repeats)
        print(
            f"{n:>6,} words, a new projection: neighbours kept and trustworthiness {measure / 1000:.2f} s; "
            f"both at k = {', '.join(map(str, neighbours.CURVE_KS))} (one method's curve) {curve / 1000:.2f} s"
        )

    chosen = ["man", "woman", "king", "queen"]
    grouped = [w for name in ("animals", "countries", "capitals", "numbers") for w in cloud.GROUPS[name]]
    rows, _ = cloud.cloud_rows(wv, 5000, chosen + grouped)
    assert len(rows) == default_cloud_points(wv)
    y = cloud.project(wv.vectors[rows].numpy(), cfg)
    hit = {}
    for name, cloud_id in (("page", ("bundled", 5000, tuple(rows[5000:]))), ("rows", tuple(rows))):

        def lookups(cloud_id=cloud_id) -> None:
            honesty._measured(wv, rows, cloud_id, cfg, k, True, y)
            honesty._curve(wv, rows, cloud_id, cfg, neighbours.CURVE_KS, y)

        hit[name] = median_ms(lookups, args.repeats)
    print(
        f"the page's first cloud ({len(rows):,} points), every other rerun (cache hit): the measure's and the curve's "
        f"lookups {hit['page']:.1f} ms (keyed by every row: {hit['rows']:.1f} ms)"
    )
    print(f"the page's whole rerun in AppTest at its defaults: {page_rerun(args.repeats):.0f} ms")


if __name__ == "__main__":
    main()
