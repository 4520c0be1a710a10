"""The attention page's core cost at its defaults: what a rerun computes when a control moves.

In this process, with GloVe and MiniLM's position table loaded once (the page keeps them in st.cache_resource):
make_head (the sentence through GloVe, W_q, W_k, T5's table), compare (every scheme's logits, softmax, bias or four
terms, shift check and past-the-trained-length data, with a trained 16 x 64 table and MiniLM's 512 x 384 one) and
score_by_distance (every scheme's curve), each the median of --repeats runs after a warm-up; then all of it with the
page's four figures (logits, softmax, four terms, score against distance) built and serialised; at the defaults and at
the largest sentence (64 tokens), d_model 1,024 and head_dim 256.
One thread per torch op (OMP_NUM_THREADS=1), as scripts/run.sh and the image run the server.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/attention.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one CPU thread per torch op, as the server runs

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.attention.head import MAX_TOKENS, AttentionConfig, make_head  # noqa: E402
from core.attention.view import attention_view, compare, score_by_distance  # noqa: E402
from core.glove import load_glove  # noqa: E402
from core.pretrained import minilm_position_table  # noqa: E402
from figures.attention import distance_figure, heatmaps_figure, terms_figure  # noqa: E402


def median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def figures_json(cfg: AttentionConfig, wv, tables) -> int:
    """The page's work per configuration: the view, the distance curves, four figures as JSON; bytes sent."""
    view = attention_view(cfg, wv, tables)
    tokens = view.head.tokens
    d, curves = score_by_distance(view.head, cfg, tables)
    figs = [
        heatmaps_figure(view.matrices("logits"), tokens, "logits"),
        heatmaps_figure(view.matrices("weights"), tokens, "softmax", shared=True, zmid=None, colorscale="Blues"),
        terms_figure(view.terms("sinusoidal"), view.matrices()["sinusoidal"], tokens, "terms"),
        distance_figure(d.numpy(), {k: v.numpy() for k, v in curves.items()}, "distance"),
    ]
    return sum(len(f.to_json()) for f in figs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    wv = load_glove()
    tables = {
        "trained": torch.randn(16, 64, generator=torch.Generator().manual_seed(0)),
        "MiniLM": minilm_position_table(),
    }
    long = " ".join([w for w in wv.itos[100:1000] if w.isalpha()][:MAX_TOKENS])
    print(f"torch threads {torch.get_num_threads()}; learned tables {[tuple(t.shape) for t in tables.values()]}")
    for name, cfg in (
        ("defaults (10 tokens, d_model 50, head_dim 16)", AttentionConfig()),
        (
            f"largest ({MAX_TOKENS} tokens, d_model 1,024, head_dim 256, causal)",
            AttentionConfig(sentence=long, d_model=1024, head_dim=256, causal=True),
        ),
    ):
        head = make_head(cfg, wv)
        made = median_ms(lambda cfg=cfg: make_head(cfg, wv), args.repeats)
        compared = median_ms(lambda cfg=cfg, head=head: compare(head, cfg, tables), args.repeats)
        curves = median_ms(lambda cfg=cfg, head=head: score_by_distance(head, cfg, tables), args.repeats)
        figures = median_ms(lambda cfg=cfg: figures_json(cfg, wv, tables), args.repeats)
        print(
            f"{name}: make_head {made:.2f} ms, compare (7 schemes) {compared:.2f} ms, "
            f"score_by_distance {curves:.2f} ms; total {made + compared + curves:.2f} ms; with the four figures "
            f"built and serialised (to_json, what Streamlit sends) {figures:.2f} ms"
        )


if __name__ == "__main__":
    main()
