"""The server's environment is the same wherever it starts: scripts/run.sh, the Docker image, and the harness
that the browser tests and benchmarks use (so that they measure what is deployed)."""

import re

from tests.browser.harness import ROOT, SERVER_ENV


def test_run_sh_sets_every_server_variable_with_the_harness_default():
    script = (ROOT / "scripts" / "run.sh").read_text()
    for name, value in SERVER_ENV.items():
        assert f'export {name}="${{{name}:-{value}}}"' in script


def test_the_image_sets_every_server_variable_to_the_harness_value():
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
