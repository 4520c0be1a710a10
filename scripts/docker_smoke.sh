#!/usr/bin/env bash
# Build the image and run it, on a machine like the project's (Debian, no registry reachable):
#   1. start dockerd (vfs storage driver) when none answers;
#   2. a base image: $BASE if given, else python:3.11-slim if it can be pulled, else a local Debian
#      bookworm made with debootstrap and `docker import` (emblab-base:bookworm);
#   3. the wheels: `pip download` of requirements.txt and requirements-nodeps.txt into ./wheels with this
#      machine's pip (its CPU torch wheel included), then an OFFLINE=1 build that uses nothing else;
#   4. run it, wait for the health check, open two pages in Chromium, check that root is refused.
# Prints the build time and the image size. Run as root: bash scripts/docker_smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-emblab:smoke}
PORT=${PORT:-8599}
PY=${PY:-.venv/bin/python}

if ! docker info >/dev/null 2>&1; then
    command -v dockerd >/dev/null || apt-get install -y docker.io
    (dockerd --storage-driver vfs >/tmp/emblab-dockerd.log 2>&1 &)
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
fi

if [ -z "${BASE:-}" ]; then
    if docker pull python:3.11-slim >/dev/null 2>&1; then
        BASE=python:3.11-slim
    else
        BASE=emblab-base:bookworm
        if ! docker image inspect "$BASE" >/dev/null 2>&1; then
            echo "No registry: making $BASE with debootstrap"
            command -v debootstrap >/dev/null || apt-get install -y debootstrap
            root=$(mktemp -d)
            chmod 755 "$root"  # mktemp makes it 0700: the image's / would shut out the non-root user
            debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm "$root" \
                http://deb.debian.org/debian >/tmp/emblab-debootstrap.log
            rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
            tar -C "$root" -c . | docker import - "$BASE"
            rm -rf "$root"
        fi
    fi
fi
echo "Base image: $BASE"

pip download --quiet --only-binary=:all: -r requirements.txt -d wheels
pip download --quiet --only-binary=:all: --no-deps -r requirements-nodeps.txt -d wheels
start=$(date +%s)
docker build --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t "$IMAGE" .
build_s=$(( $(date +%s) - start ))

name=emblab-smoke-$$
docker run -d --name "$name" --network host "$IMAGE" --server.port="$PORT" >/dev/null
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
for _ in $(seq 120); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$name")" = healthy ] && break
    curl -fs "http://127.0.0.1:$PORT/_stcore/health" >/dev/null 2>&1 && break
    sleep 2
done
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
    page.wait_for_selector(".js-plotly-plot")  # drawn by ui.live_chart with the image's Streamlit plotly.js
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
