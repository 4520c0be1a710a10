#!/usr/bin/env bash
# Build the image and run it, on a machine like the project's (Debian, no registry reachable):
#   1-3. scripts/docker_prepare.sh: dockerd (vfs) when none answers, a base image (a debootstrap Debian when no
#      registry answers), ./wheels from this machine's pip (its CPU torch wheel included);
#   4. an OFFLINE=1 build that uses nothing else; run it on another port than 8501, wait until Docker's health
#      check says healthy (it follows --server.port), open two pages in Chromium, check that root is refused.
# Prints the build time and the image size. Run as root: bash scripts/docker_smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-emblab:smoke}
PORT=${PORT:-8599}
PY=${PY:-.venv/bin/python}

# shellcheck source=scripts/docker_prepare.sh
. scripts/docker_prepare.sh
start=$(date +%s)
docker build --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t "$IMAGE" .
build_s=$(( $(date +%s) - start ))

name=emblab-smoke-$$
docker run -d --name "$name" --network host "$IMAGE" --server.port="$PORT" >/dev/null
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
for _ in $(seq 120); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$name")" = healthy ] && break
    sleep 2
done
health=$(docker inspect -f '{{.State.Health.Status}}' "$name")
[ "$health" = healthy ] || { docker logs "$name"; echo "FAIL: Docker says $health on port $PORT"; exit 1; }
curl -fs "http://127.0.0.1:$PORT/_stcore/health" >/dev/null || { docker logs "$name"; echo "FAIL: no health"; exit 1; }
echo "Health check: ok"

"$PY" - "$PORT" <<'PY'
import sys, tempfile
from playwright.sync_api import sync_playwright
sys.path.insert(0, ".")
from tests.browser.harness import launch_chromium, wait_until_idle

with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
    context = launch_chromium(p, profile)
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(f"http://127.0.0.1:{sys.argv[1]}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception on the page"
    print("Chromium: the word page drew its chart:", page.locator("h1").first.inner_text())
    page.goto(f"http://127.0.0.1:{sys.argv[1]}/positional_encoding")
    page.wait_for_selector(".live-chart .js-plotly-plot")  # drawn by ui.live_chart with the image's Streamlit plotly.js
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception on the page"
    print("Chromium: the PE page drew its heatmap with ui.live_chart")
    context.close()
PY

if docker run --rm --user root "$IMAGE" >/tmp/emblab-root.log 2>&1; then
    echo "FAIL: the image ran as root"; exit 1
fi
grep -q "refusing to run as root" /tmp/emblab-root.log && echo "Root: refused"
size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
echo "Build: ${build_s} s; image size: $(( size / 1000000 )) MB"
