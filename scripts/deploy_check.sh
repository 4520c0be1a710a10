#!/usr/bin/env bash
# deploy/ with Docker on this machine, by hand (CI has no Docker). Run as root, holding the machine lock:
#   flock /tmp/emblab-bench.lock bash scripts/deploy_check.sh            # every step
#   STEPS="compose failover" flock /tmp/emblab-bench.lock bash scripts/deploy_check.sh
# Steps (each prints what it measured):
#   build     the app image (OFFLINE=1, wheels from scripts/docker_prepare.sh) and the proxy image, timed; then a
#             one-line page change in a copy of the build context, rebuilt: its time and the steps not cached;
#   run       `docker run --server.port=N` until Docker says healthy (the HEALTHCHECK follows the port), timed;
#             the same with a read-only root filesystem (--read-only, tmpfs on /tmp and the home directory, as
#             deploy/k8s/ runs it), two pages in Chromium;
#   compose   docker-compose up: 2 replicas and the proxy; two browsers land on two replicas; a page in Chromium;
#   failover  a load run through the proxy (scripts/deploy_failover.py); one replica's process killed partway
#             through (a crash: Docker restarts it; `docker kill` would count as a stop and leave it stopped);
#             then every replica stopped: the proxy's answer (503 and its page) and how long it took;
#   swarm     a one-node swarm: docker stack deploy of the same file (its port published on the node, mode: host,
#             since the routing mesh needs IPVS); two browsers through the proxy; then removed.
# Leaves the images; removes its containers, stack and (when it made it) the swarm.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
STEPS=${STEPS:-build run compose failover swarm}
PROJECT=emblabcheck
export DOCKER_BUILDKIT=0  # the daemon's classic builder: Debian's docker.io has no buildx
export PYTHONPATH=$PWD
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
port() { "$PY" -c 'from tests.browser.harness import free_port; print(free_port())'; }
since() { echo $(( $(date +%s) - $1 )); }

command -v docker-compose >/dev/null || apt-get install -y docker-compose
# shellcheck source=scripts/docker_prepare.sh
. scripts/docker_prepare.sh
export EMBLAB_BASE=$BASE EMBLAB_OFFLINE=1

wait_healthy() {  # container, seconds: prints the seconds it took, fails when it never got healthy
    local start; start=$(date +%s)
    for _ in $(seq "$2"); do
        [ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" = healthy ] && { since "$start"; return 0; }
        sleep 1
    done
    docker logs --tail 30 "$1"; echo "FAIL: $1 is $(docker inspect -f '{{.State.Health.Status}}' "$1")"; return 1
}

browse() {  # url: the word page and the PE page in Chromium, no exception; then two learners' replicas
    "$PY" - "$1" <<'PY'
import sys, tempfile
from playwright.sync_api import sync_playwright
from tests.browser.harness import launch_chromium, wait_until_idle
from tests.browser.replicas import REPLICA_HEADER

url = sys.argv[1]
with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
    context = launch_chromium(p, profile)
    served = []
    for base in (url, url.replace("127.0.0.1", "localhost")):  # two cookie jars: two browsers to the proxy
        page = context.new_page()
        page.set_default_timeout(120_000)
        answer = page.goto(f"{base}/word_embeddings")
        page.wait_for_selector(".js-plotly-plot")
        wait_until_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0, "an exception on the page"
        served.append(answer.headers.get(REPLICA_HEADER, "-"))
    page.goto(f"{url}/positional_encoding?d_model=64")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception on the page"
    print("Chromium: the word and PE pages drew their charts")
    if served[0] != "-":
        print(f"Two browsers (two cookie jars) were served by the replicas {served}")
    context.close()
PY
}

if has build; then
    start=$(date +%s)
    docker build -q --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t emblab . >/dev/null
    echo "App image build: $(since "$start") s (layers already cached count as done)"
    start=$(date +%s)
    docker build -q --network host --build-arg BASE="$BASE" -f deploy/proxy.Dockerfile -t emblab-proxy . >/dev/null
    echo "Proxy image build: $(since "$start") s"
    # A one-line page change, made in a copy of the build context so that the working tree stays as it is.
    ctx=$(mktemp -d)
    tar -c --exclude=.git --exclude=.venv --exclude=.ruff_cache --exclude=.pytest_cache . | tar -x -C "$ctx"
    # the copy as it is first (other files may have changed since the build above), then the one-line change
    docker build -q --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t emblab:touched "$ctx" >/dev/null
    echo "# a one-line change" >>"$ctx/lessons/word_embeddings.py"
    start=$(date +%s)
    docker build --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t emblab:touched "$ctx" \
        >/tmp/emblab-rebuild.log
    echo "Rebuild after a one-line page change: $(since "$start") s; steps not taken from the cache:"
    awk '/^Step /{if (s && !c && s !~ / : (FROM|ARG) /) print "    " s; s=$0; c=0} /Using cache/{c=1}
         END{if (s && !c) print "    " s}' \
        /tmp/emblab-rebuild.log
    rm -rf "$ctx"
    docker image rm emblab:touched >/dev/null
    echo "App image size: $(( $(docker image inspect -f '{{.Size}}' emblab) / 1000000 )) MB"
fi

if has run; then
    p=$(port)
    name=$PROJECT-run
    docker rm -f "$name" >/dev/null 2>&1 || true
    start=$(date +%s)
    docker run -d --name "$name" --network host emblab --server.port="$p" >/dev/null
    echo "docker run --server.port=$p to healthy: $(wait_healthy "$name" 300) s (Docker's health check)"
    docker rm -f "$name" >/dev/null
    p=$(port)
    docker run -d --name "$name" --network host --read-only --tmpfs /tmp --tmpfs /home/emblab \
        -e STREAMLIT_SERVER_PORT="$p" emblab >/dev/null
    echo "Read-only root filesystem, -e STREAMLIT_SERVER_PORT=$p: healthy after $(wait_healthy "$name" 300) s"
    browse "http://127.0.0.1:$p"
    docker rm -f "$name" >/dev/null
fi

compose() { docker-compose -p "$PROJECT" -f deploy/compose.yaml "$@"; }
if has compose || has failover; then
    p=$(port)
    export EMBLAB_PORT=127.0.0.1:$p
    trap 'compose down -t 5 >/dev/null 2>&1 || true' EXIT
    start=$(date +%s)
    compose up -d --no-build
    for c in $(compose ps -q emblab); do wait_healthy "$c" 300 >/dev/null; done
    echo "compose up to every replica healthy: $(since "$start") s; replicas: $(compose ps -q emblab | wc -l)," \
        "restart policy: $(docker inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$(compose ps -q emblab | head -1)")"
    for _ in $(seq 60); do curl -fs "http://127.0.0.1:$p/_stcore/health" >/dev/null && break; sleep 1; done
    browse "http://127.0.0.1:$p"
fi

if has failover; then
    victim=$(compose ps -q emblab | head -1)
    "$PY" scripts/deploy_failover.py --url "http://127.0.0.1:$p" --learners "${LEARNERS:-24}" --seconds 90 \
        --kill-at 30 --kill "kill -9 $(docker inspect -f '{{.State.Pid}}' "$victim")" --healthy "docker inspect -f {{.State.Health.Status}} $victim"
    compose stop -t 5 emblab >/dev/null
    sleep 5  # the proxy's health checks (every 2 s, two failures) and DNS hold (5 s) see them go
    "$PY" - "http://127.0.0.1:$p/word_embeddings" <<'PY'
import sys, time, urllib.error, urllib.request
start = time.monotonic()
try:
    answer = urllib.request.urlopen(sys.argv[1], timeout=30)
    print(f"FAIL: with every replica stopped the proxy answered {answer.status}")
except urllib.error.HTTPError as err:
    page = err.read().decode()
    ok = err.code == 503 and "The lab is restarting" in page
    print(f"Every replica stopped: HTTP {err.code} in {time.monotonic() - start:.3f} s, the page: {ok}")
PY
fi
if has compose || has failover; then
    compose down -t 5 >/dev/null 2>&1
    trap - EXIT
fi

if has swarm; then
    made_swarm=0
    if [ "$(docker info -f '{{.Swarm.LocalNodeState}}')" != active ]; then
        docker swarm init --advertise-addr 127.0.0.1 >/dev/null
        made_swarm=1
    fi
    cleanup() {
        docker stack rm "$PROJECT" >/dev/null 2>&1 || true
        [ "$made_swarm" = 1 ] && { sleep 5; docker swarm leave --force >/dev/null 2>&1 || true; }
    }
    trap cleanup EXIT
    p=$(port)
    start=$(date +%s)
    # Swarm's routing mesh (the default, "ingress" publishing) needs the kernel's IPVS, which this machine lacks:
    # the check publishes the proxy's port on the node that runs it instead (mode: host), in a copy of the file.
    stackfile=$(mktemp --suffix=.yaml)
    "$PY" - "$p" "$stackfile" <<'PY'
import sys, yaml
compose = yaml.safe_load(open("deploy/compose.yaml"))
compose["services"]["proxy"]["ports"] = [{"target": 8501, "published": int(sys.argv[1]), "mode": "host"}]
yaml.safe_dump(compose, open(sys.argv[2], "w"))
PY
    docker stack deploy -c "$stackfile" "$PROJECT"
    for _ in $(seq 300); do
        [ "$(docker service ls --filter name="${PROJECT}_emblab" --format '{{.Replicas}}')" = 2/2 ] \
            && curl -fs "http://127.0.0.1:$p/_stcore/health" >/dev/null 2>&1 && break
        sleep 1
    done
    docker service ls --filter name="$PROJECT"
    curl -fs "http://127.0.0.1:$p/_stcore/health" >/dev/null || {
        docker service ps --no-trunc "${PROJECT}_emblab" "${PROJECT}_proxy" | head; echo "FAIL: no answer"; exit 1; }
    echo "docker stack deploy to the proxy answering with 2 replicas: $(since "$start") s"
    browse "http://127.0.0.1:$p"
fi
