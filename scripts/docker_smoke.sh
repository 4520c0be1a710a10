#!/usr/bin/env bash
# Build the image offline and check that it serves the lab, on a machine like the project's (Debian, no registry
# reachable). Run it after every change to the image or to what it serves. Run as root:
#   bash scripts/docker_smoke.sh                  # build, then check
#   SKIP_BUILD=1 bash scripts/docker_smoke.sh     # check the image already built ($IMAGE, default emblab:smoke)
# Steps, each printing what it found:
#   1. scripts/docker_prepare.sh: dockerd (vfs) when none answers, a base image (a debootstrap Debian when no
#      registry answers), ./wheels (and binutils' .deb files) from this machine, served on 127.0.0.1:8765;
#   2. an OFFLINE=1 build: its time, the build context sent, the image's size, and the images it left dangling;
#   3. `docker run --server.port=N` until Docker's health check says healthy (it follows the port), timed;
#   4. in the image, every module the lab's sources import (what scripts/docker_slim.sh took out is none of them);
#   5. Chromium: the PE page draws its heatmap (plotly's data in the page, its shape printed), the word page its
#      chart; no exception;
#   6. Streamlit's protocol (loadtest/protocol.py): every page opened, then the three long jobs run to the end
#      (UMAP on the embedding-space page, Evaluate on the word page, Train on the learned-vs-sinusoidal page);
#   7. the image refuses to run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-emblab:smoke}
PORT=${PORT:-8599}
PY=${PY:-.venv/bin/python}
export DOCKER_BUILDKIT=0  # the daemon's classic builder: Debian's docker.io has no buildx

# shellcheck source=scripts/docker_prepare.sh
. scripts/docker_prepare.sh
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    start=$(date +%s)
    docker build --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t "$IMAGE" . | tee /tmp/emblab-smoke-build.log
    echo "Build: $(( $(date +%s) - start )) s; $(grep -m1 'Sending build context' /tmp/emblab-smoke-build.log)"
    # the sources stage (FROM scratch, a few hundred kB) is the one image the classic builder leaves untagged
    docker image prune -f --filter label=org.emblab.stage=source >/dev/null
    dangling=$(docker images -f dangling=true --format '{{.ID}} {{.Size}}' | tr '\n' ' ')
    echo "Dangling images after the build: ${dangling:-none}"
fi
echo "Image size: $(( $(docker image inspect -f '{{.Size}}' "$IMAGE") / 1000000 )) MB"

name=emblab-smoke-$$
start=$(date +%s)
docker run -d --name "$name" --network host "$IMAGE" --server.port="$PORT" >/dev/null
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
for _ in $(seq 300); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$name")" = healthy ] && break
    sleep 1
done
health=$(docker inspect -f '{{.State.Health.Status}}' "$name")
[ "$health" = healthy ] || { docker logs "$name"; echo "FAIL: Docker says $health on port $PORT"; exit 1; }
curl -fs "http://127.0.0.1:$PORT/_stcore/health" >/dev/null || { docker logs "$name"; echo "FAIL: no health"; exit 1; }
echo "docker run to healthy: $(( $(date +%s) - start )) s (Docker's health check, every 15 s)"

docker exec -i "$name" python3 - <<'PY'
import ast, importlib, pathlib, sys

own = {"app", "core", "figures", "lessons", "ui", "scripts"}
names = set()
for path in [pathlib.Path("app.py"), *pathlib.Path(".").glob("[cflsu]*/**/*.py")]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
failed = []
for name in sorted(names):
    if name.split(".")[0] in own or name.split(".")[0] in sys.stdlib_module_names:
        continue
    try:
        importlib.import_module(name)
    except ImportError:  # `from x import f`: x.f is a function, not a module; x itself must import
        try:
            module, _, attr = name.rpartition(".")
            getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            failed.append(f"{name}: {err}")
print(f"In the image: {len(names)} imports named by the lab's sources, {len(failed)} failed")
sys.exit("\n".join(failed) if failed else 0)
PY

PYTHONPATH=$PWD "$PY" - "$PORT" <<'PY'
import sys, tempfile, time
from playwright.sync_api import sync_playwright
from loadtest.protocol import Session
from tests.browser.harness import launch_chromium, wait_until_idle
from ui.pages import OVERVIEW, PATH

url = f"http://127.0.0.1:{sys.argv[1]}"
# The heatmap as plotly holds it in the page, whatever element the chart is drawn in (ui.live_chart's <div>).
HEATMAP = """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => (p._fullData || [])
    .find(t => t.type === 'heatmap' && t.z && t.z.length) && p.querySelector('.main-svg') ? p : null)
    .filter(Boolean).map(p => { const z = p._fullData.find(t => t.type === 'heatmap').z;
    return `${z.length} x ${z[0].length}`; })[0] || null"""
with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
    context = launch_chromium(p, profile)
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(f"{url}/positional_encoding")
    shape = page.wait_for_function(HEATMAP).json_value()
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception on the PE page"
    print(f"Chromium: the PE page drew its heatmap ({shape} cells shown)")
    page.goto(f"{url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception on the word page"
    print("Chromium: the word page drew its chart:", page.locator("h1").first.inner_text())
    context.close()


def errors(session: Session) -> list[str]:
    alerts = [e.value for e in session.page_elements() if e.kind == "alert" and e.proto.format == 1]  # st.error
    return session.exceptions() + alerts


pages = [lesson.script.removeprefix("lessons/").removesuffix(".py") for lesson in (OVERVIEW, *PATH)]
for name in pages:
    with Session.open(url, "" if name == "overview" else name, timeout=300) as session:
        assert not errors(session), (name, errors(session))
print(f"Protocol: {len(pages)} pages opened, no error")
for name, moves, button in (
    ("embedding_space", {"es_method": "UMAP"}, "es_run"),
    ("word_embeddings", {}, "we_eval_go"),
    ("learned_vs_sinusoidal", {}, "lv_train"),
):
    with Session.open(url, name, timeout=300) as session:
        for widget, value in moves.items():
            session.set(widget, value)
        start = time.monotonic()
        session.set(button, True)
        while any(e.kind == "progress" for e in session.page_elements()) and time.monotonic() - start < 600:
            time.sleep(2)
            session.rerun()
        assert not errors(session), (name, errors(session))
        assert not any(e.kind == "progress" for e in session.page_elements()), f"{name}: {button} never finished"
        print(f"Protocol: {name}: {button} ran to the end in {time.monotonic() - start:.0f} s, no error")
PY

if docker run --rm --user root "$IMAGE" >/tmp/emblab-root.log 2>&1; then
    echo "FAIL: the image ran as root"; exit 1
fi
grep -q "refusing to run as root" /tmp/emblab-root.log && echo "Root: refused"
echo "Smoke: ok"
