#!/usr/bin/env bash
# Build the image offline and check that it serves the lab, on a machine like the project's (Debian, no registry
# reachable). Run it after every change to the image or to what it serves. Run as root:
#   bash scripts/docker_smoke.sh                  # build, then check
#   SKIP_BUILD=1 bash scripts/docker_smoke.sh     # check the image already built ($IMAGE, default emblab:smoke)
# Steps, each printing what it found:
#   1. scripts/docker_prepare.sh: dockerd (vfs) when none answers, a base image (a debootstrap Debian when no
#      registry answers), ./wheels (and binutils' .deb files) from this machine, served on 127.0.0.1:8765;
#   2. an OFFLINE=1 build: its time, the build context sent, the image's size, and the images it left dangling;
#   3. `docker run --server.port=N` (a free port unless PORT is set) until Docker's health check says healthy (it
#      follows the port, and passes only once the lab serves), timed;
#   4. in the image, every module the lab's sources import (what scripts/docker_slim.sh took out is none of them;
#      what only a type checker reads, such as _typeshed, is not an import);
#   5. Chromium: the PE page draws its heatmap (plotly's data in the page, its shape printed), the word page its
#      chart; no exception;
#   6. Streamlit's protocol (loadtest/protocol.py): every page opened, then the three long jobs run to the end
#      (UMAP on the embedding-space page, Evaluate on the word page, Train on the learned-vs-sinusoidal page);
#   (4-6: scripts/smoke.py, which CI runs without Docker: tests/deploy/test_smoke.py)
#   7. the image refuses to run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-emblab:smoke}
# PY: a Python with the dev packages (Playwright, the websocket client) for steps 5-6; scripts/install_dev.sh makes
# .venv with them (and Debian's chromium) when it is missing, as on a fresh clone.
PY=${PY:-.venv/bin/python}
if [ ! -x "$PY" ]; then
    bash scripts/install_dev.sh
    PY=.venv/bin/python
fi
# PORT: a free one unless given
PORT=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
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
# The health check fails, saying "starting", while the warm-up runs, and passes once the lab serves; the start period
# (900 s) keeps Docker from calling it unhealthy meanwhile.
served=
for _ in $(seq 1000); do
    health=$(docker inspect -f '{{.State.Health.Status}}' "$name")
    [ "$health" = unhealthy ] && break
    if [ "$health" = healthy ] && curl -fs "http://127.0.0.1:$PORT/_stcore/health" >/dev/null; then
        served=$(( $(date +%s) - start )); break
    fi
    sleep 1
done
[ -n "$served" ] || { docker logs "$name"; echo "FAIL: Docker says $health on port $PORT, or no health answer"; exit 1; }
echo "docker run to serving: $served s; the health check's log:"
docker inspect -f '{{range .State.Health.Log}}{{.Output}}{{end}}' "$name"

# Steps 4-6 are scripts/smoke.py, which CI runs against `streamlit run` (tests/deploy/test_smoke.py).
docker exec -i "$name" python3 - imports /app < scripts/smoke.py
"$PY" scripts/smoke.py charts "http://127.0.0.1:$PORT"
"$PY" scripts/smoke.py pages "http://127.0.0.1:$PORT"
"$PY" scripts/smoke.py jobs "http://127.0.0.1:$PORT"

if docker run --rm --user root "$IMAGE" >/tmp/emblab-root.log 2>&1; then
    echo "FAIL: the image ran as root"; exit 1
fi
grep -q "refusing to run as root" /tmp/emblab-root.log && echo "Root: refused"
echo "Smoke: ok"
