"""The embedding-space page's settings, declared once (ui.settings), in the order the page draws them: the vectors,
the cloud and its colours, the projection (defaults: core.cloud.CloudConfig's), how honest the plot is, the find, and
the perplexity sweep. The page draws each widget from here; the link and the tests read it."""

from __future__ import annotations

from core import neighbours
from core.cloud import GROUPS, METHODS, SIZES, CloudConfig
from ui.i18n import t
from ui.settings import Setting, Settings
from ui.vectors import vectors_setting

SIZE = 5000  # the cloud's words at first: enough to show clusters, drawn at once by PCA
GROUPS_SHOWN = ("animals", "countries", "capitals", "numbers")  # the ready-made groups coloured at first
DIMS = ("2D", "3D")
NEIGHBOURS_K = (1, 50, 10)  # the search's k: least, most, default
SEEDS = (0, 2**31 - 1)  # numpy's random seeds
PERPLEXITIES = (1.0, 5000.0)  # the box's ends; CloudConfig.problem_with says what suits a cloud of n points
LEARNING_RATES = (0, 10, 50, 100, 200, 500, 1000, 2000)  # 0: openTSNE's auto
ITERATIONS = (300, 500, 750, 1000, 1500, 2000)  # each above cloud.EXAGGERATION_ITERS
N_NEIGHBORS = (2, 5000)
MIN_DISTS = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.8, 0.99)
SWEEP_DATA = ("sizes", "gaps", "cloud")  # core.neighbours.DEMOS, then the page's own cloud
SWEEP = ", ".join(f"{p:g}" for p in neighbours.SWEEP)  # the sweep's perplexities at first, as the box shows them


def group_text(name: str) -> str:
    """A ready-made group's name in the reader's language ("past tense verbs": es.group_past_tense_verbs)."""
    return t(f"es.group_{name.replace(' ', '_')}")


SETTINGS = Settings(
    "es",
    (
        vectors_setting("es"),
        # --- the cloud
        Setting("es_size", "select_slider", SIZE, "es.size", options=SIZES),
        Setting("es_words", "text_input", "man, woman, king, queen", "es.words"),
        # The groups are named in the reader's language, in the box and the legend (group_text); the link keeps
        # core's names.
        Setting("es_groups", "multiselect", GROUPS_SHOWN, "es.groups", options=tuple(GROUPS), translated=True),
        Setting("es_own_groups", "text_area", "", "es.own_groups"),
        # --- the projection
        Setting("es_method", "radio", CloudConfig.method, "es.method", options=METHODS),
        Setting("es_dims", "radio", f"{CloudConfig.dims}D", "we.dims", options=DIMS),
        Setting("es_seed", "number_input", CloudConfig.seed, "es.seed", low=SEEDS[0], high=SEEDS[1], step=1),
        Setting(
            "es_perplexity",
            "number_input",
            CloudConfig.perplexity,
            "es.perplexity",
            low=PERPLEXITIES[0],
            high=PERPLEXITIES[1],
            step=1.0,
        ),
        Setting(
            "es_learning_rate", "select_slider", CloudConfig.learning_rate, "es.learning_rate", options=LEARNING_RATES
        ),
        Setting("es_iterations", "select_slider", CloudConfig.iterations, "es.iterations", options=ITERATIONS),
        Setting(
            "es_n_neighbors",
            "number_input",
            CloudConfig.n_neighbors,
            "es.n_neighbors",
            low=N_NEIGHBORS[0],
            high=N_NEIGHBORS[1],
        ),  # fmt: skip
        Setting("es_min_dist", "select_slider", CloudConfig.min_dist, "min_dist", options=MIN_DISTS),
        # --- how honest the plot is
        Setting("es_kept_k", "number_input", neighbours.K, "es.kept_k", low=1, high=neighbours.MAX_K),
        Setting("es_colour_kept", "toggle", False, "es.colour_kept", help="es.colour_kept_help"),
        # --- the find
        Setting("es_find", "text_input", "", "we.word"),
        Setting("es_k", "slider", NEIGHBOURS_K[2], "es.k", low=NEIGHBOURS_K[0], high=NEIGHBOURS_K[1]),
        Setting("es_isolate", "toggle", False, "es.isolate", help="es.isolate_help"),
        Setting("es_replay", "toggle", False, "es.replay"),
        Setting("es_curve", "toggle", True, "es.curve", help="es.curve_help"),
        # --- the sweep
        Setting(
            "es_sweep_data",
            "radio",
            SWEEP_DATA[0],
            "es.sweep_data",
            options=SWEEP_DATA,
            option_text="es.sweep_{}",
            translated=True,
        ),
        Setting("es_sweep", "text_input", SWEEP, "es.sweep"),
    ),
)
