"""The learned-vs-sinusoidal page's settings, declared once (`SETTINGS`): the task and its k, d_model, the trained
length, the steps, the learning rate and the seed (the TrainConfig they make, `train_config`), and the length the
models are tested at. The attention page reads them too (its table trained here): `train_config(st.session_state)`.
The boxes have no bounds: a value TrainConfig refuses gets its message, which says what to change."""

from __future__ import annotations

import dataclasses
from typing import Any

from core.training import MAX_D_MODEL, TASKS, TrainConfig
from ui.parse import parse_number
from ui.settings import Setting, Settings

SIZES = tuple(2**k for k in range(4, MAX_D_MODEL.bit_length()))  # d_model's choices: 16 ... MAX_D_MODEL
LR = f"{TrainConfig.lr:g}"  # the learning rate's box holds text: "3e-03" would not read as the default

SETTINGS = Settings(
    "lv",
    (
        # the tasks are shown translated and kept in the link as core names them (?lv_task=reverse)
        Setting("lv_task", "selectbox", TrainConfig.task, "lv.task", options=TASKS, option_text="lv.task_{}",
                translated=True, help="lv.task_help"),
        Setting("lv_shift", "number_input", TrainConfig.shift, "lv.shift", step=1),
        Setting("lv_d_model", "select_slider", TrainConfig.d_model, "d_model", options=SIZES),
        Setting("lv_train_len", "number_input", TrainConfig.train_len, "lv.train_len", step=1),
        Setting("lv_steps", "number_input", TrainConfig.steps, "lv.steps", step=50),
        Setting("lv_lr", "text_input", LR, "lv.lr"),
        Setting("lv_seed", "number_input", TrainConfig.seed, "es.seed", low=0, high=2**31 - 1, step=1),
        # by default twice the trained length: as far past it as within it
        Setting("lv_test_len", "number_input", 2 * TrainConfig.train_len, "lv.test_len", step=1,
                help="lv.test_len_help"),
    ),
)  # fmt: skip
FIELDS = {f.name for f in dataclasses.fields(TrainConfig)}  # the settings that are TrainConfig's (not test_len)


def train_config(state: Any, position: str = "learned") -> TrainConfig:
    """The TrainConfig of the page's settings in a session (st.session_state), each one the page has not drawn yet
    at its default, for one of the models (core.training.POSITIONS). Raises ValueError (a Problem) with what to
    change."""
    chosen = {name: value for name, value in SETTINGS.values(state).items() if name in FIELDS}
    lr = SETTINGS["lv_lr"]
    chosen["lr"] = parse_number(chosen["lr"], lr.shown_label(), lr.default)
    return TrainConfig(position=position, **chosen)
