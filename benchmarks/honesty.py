"""What the embedding-space page's honesty measure costs at its defaults, and what it adds to a rerun.

The page's first cloud: the 5,000 most frequent words of the bundled GloVe plus its chosen and grouped words outside
them (5,010 points), PCA in 2D, k = 10.
1. A new projection (a cache miss): core.neighbours.preservation and core.neighbours.trustworthiness on it, median
   of --repeats calls after a warm-up.
2. Every other rerun (a cache hit): the page's two cached lookups (ui.caching.page_cache_data, keyed by the
   vectors' source, the number of frequent words and the few added rows, the CloudConfig and k), median of
   --repeats; beside it the same lookups keyed by every one of the 5,010 rows, which Streamlit hashes one by one.
3. The page's whole rerun in AppTest (no browser) at its defaults, median of --repeats reruns after the first run
   (which computed the measure): what 2. is a part of.
One thread per torch op (OMP_NUM_THREADS=1), as the server runs.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/honesty.py [--repeats 5]
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
from ui.caching import page_cache_data  # noqa: E402
from ui.vectors import bundled_vectors  # noqa: E402

PAGE = "lessons/embedding_space.py"


@page_cache_data(max_entries=8)
def kept_counts(_wv, _rows: list[int], cloud_id: tuple, cfg: cloud.CloudConfig, k: int, _coords):
    return neighbours.preservation(_wv.vectors[_rows].cpu().numpy(), _coords, k).kept


@page_cache_data(max_entries=8)
def trust(_wv, _rows: list[int], cloud_id: tuple, cfg: cloud.CloudConfig, k: int, _coords) -> float:
    return neighbours.trustworthiness(_wv.vectors[_rows].cpu().numpy(), _coords, k)


def page_rerun(repeats: int) -> float:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception and len(at.metric) == 2, at.exception
    return median_ms(at.run, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # bare mode's "missing ScriptRunContext"
    wv = bundled_vectors()
    chosen = ["man", "woman", "king", "queen"]
    grouped = [w for name in ("animals", "countries", "capitals", "numbers") for w in cloud.GROUPS[name]]
    rows, _ = cloud.cloud_rows(wv, 5000, chosen + grouped)
    assert len(rows) == default_cloud_points(wv)
    cfg = cloud.CloudConfig()
    x = wv.vectors[rows].numpy()
    y = cloud.project(x, cfg)
    k = neighbours.K
    kept = median_ms(lambda: neighbours.preservation(x, y, k), args.repeats)
    value = median_ms(lambda: neighbours.trustworthiness(x, y, k), args.repeats)
    print(f"{wv.name}, the page's first cloud: {len(rows):,} points, PCA 2D, k = {k}")
    print(f"new projection (cache miss): neighbours kept {kept:.0f} ms, trustworthiness {value:.0f} ms")
    hit = {}
    for name, cloud_id in (("page", ("bundled", 5000, tuple(rows[5000:]))), ("rows", tuple(rows))):
        key = (rows, cloud_id, cfg, k, y)
        hit[name] = median_ms(lambda key=key: (kept_counts(wv, *key), trust(wv, *key)), args.repeats)
    print(
        f"every other rerun (cache hit): both lookups {hit['page']:.1f} ms (keyed by every row: {hit['rows']:.1f} ms)"
    )
    print(f"the page's whole rerun in AppTest at its defaults: {page_rerun(args.repeats):.0f} ms")


if __name__ == "__main__":
    main()
