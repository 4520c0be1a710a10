"""The server's environment is declared once, in serving.env, and is the same wherever the server starts:
scripts/run.sh sources it (scripts/serving_env.sh), the Docker image repeats it in ENV (checked equal here), and
labtools.server gives it to the servers the browser tests and benchmarks start (so that they measure what is
deployed)."""

import os
import re
import subprocess

from labtools.server import ROOT, SERVER_ENV, read_env


def test_serving_env_declares_the_server_variables():
    assert {"MALLOC_ARENA_MAX", "OMP_NUM_THREADS"} <= SERVER_ENV.keys()
    assert read_env(ROOT / "serving.env") == SERVER_ENV


def sourced_env(preset: dict[str, str]) -> dict[str, str]:
    """The environment scripts/run.sh serves with: scripts/serving_env.sh sourced over `preset`."""
    clean = {k: v for k, v in os.environ.items() if k not in SERVER_ENV}
    out = subprocess.run(
        ["bash", "-c", "set -euo pipefail; . scripts/serving_env.sh; env -0"],
        cwd=ROOT,
        env={**clean, **preset},
        capture_output=True,
        check=True,
    ).stdout.decode()
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


def test_run_sh_serves_with_serving_env_unless_a_variable_is_set():
    script = (ROOT / "scripts" / "run.sh").read_text()
    assert re.search(r"^\. scripts/serving_env\.sh$", script, re.MULTILINE)
    assert script.index("serving_env.sh") < script.index("streamlit run")
    env = sourced_env({})
    assert {k: env.get(k) for k in SERVER_ENV} == SERVER_ENV
    name = next(iter(SERVER_ENV))
    assert sourced_env({name: "7"})[name] == "7"  # a value the user set wins


def test_the_image_sets_every_server_variable_to_serving_env():
    dockerfile = (ROOT / "Dockerfile").read_text()
    # the final stage and the stages it is built FROM, which it inherits its ENV from
    stages = re.split(r"^FROM ", dockerfile, flags=re.MULTILINE)[1:]
    by_name = {m.group(1): text for text in stages if (m := re.match(r"\S+ AS (\S+)", text))}
    final_stage, text = "", stages[-1]
    while True:
        final_stage += text
        base = text.split()[0]
        if base not in by_name:
            break
        text = by_name.pop(base)
    for name, value in SERVER_ENV.items():
        assert re.search(rf"^\s*(ENV\s+)?{name}={value}\b", final_stage, re.MULTILINE), name
