#!/usr/bin/env bash
# deploy/ with Docker on this machine, by hand (CI has no Docker). Run as root, holding the machine lock:
#   flock /tmp/emblab-bench.lock bash scripts/deploy_check.sh            # every step
#   STEPS="compose failover" flock /tmp/emblab-bench.lock bash scripts/deploy_check.sh
# Steps (each prints what it measured):
#   build     the app image (OFFLINE=1, wheels from scripts/docker_prepare.sh) and the proxy image, timed, with
#             the build context sent and the images left dangling; then a one-line page change in a copy of the
#             build context, rebuilt: its time and the steps not cached;
#   run       `docker run --server.port=N` until Docker says healthy (the HEALTHCHECK follows the port), timed from
#             `docker run`; the same with a read-only root filesystem (--read-only, tmpfs on /tmp and the home
#             directory, as deploy/k8s/ runs it), two pages in Chromium;
#   compose   docker-compose up (deploy/compose.yaml): 2 replicas, the proxy and Redis, timed, with docker-compose's
#             warnings (none expected) and the replicas' restart policy; two browsers land on two replicas; a live
#             class started on one replica is seen by the other (serve.py's /_class/<code>/view in each), Redis
#             stopped: each says the store is down (503) and stays healthy; Redis started again: the class is back;
#   failover  a load run through the proxy (scripts/deploy_failover.py); one replica's process killed partway
#             through (kill -9: a crash, which Docker restarts), timed to healthy again, then three more kill -9
#             without load, each timed, with the replica's memory; then `docker kill` of a
#             replica (a manual stop: Docker leaves it stopped, and `docker start` brings it back); then every
#             replica stopped: the proxy's answer (503 and its page) and how long it took;
#   swarm     a one-node swarm: docker stack deploy -c deploy/stack.yaml (the proxy's port published in host
#             mode, in the file, since the routing mesh needs IPVS), with its warnings (none expected); two
#             browsers through the proxy; `docker kill` of a replica's container, which the swarm replaces; then
#             removed.
# Leaves the images; removes its containers, stack and (when it made it) the swarm.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
STEPS=${STEPS:-build run compose failover swarm}
PROJECT=emblabcheck
export DOCKER_BUILDKIT=0  # the daemon's classic builder: Debian's docker.io has no buildx
export COMPOSE_HTTP_TIMEOUT=600  # under vfs, creating a container copies the whole image: more than compose's 60 s
export PYTHONPATH=$PWD
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
port() { "$PY" -c 'from labtools.server import free_port; print(free_port())'; }
since() { echo $(( $(date +%s) - $1 )); }

command -v docker-compose >/dev/null || apt-get install -y docker-compose
# shellcheck source=scripts/docker_prepare.sh
. scripts/docker_prepare.sh
export EMBLAB_BASE=$BASE EMBLAB_OFFLINE=1

wait_healthy() {  # container, seconds, start time: prints the seconds since the start, fails when never healthy
    for _ in $(seq "$2"); do
        # healthy, and serving: the health check also passes while the warm-up runs, saying "starting"
        [ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" = healthy ] \
            && docker exec "$1" emblab-health 2>/dev/null | grep -q '^emblab-health: healthy' \
            && { since "$3"; return 0; }
        sleep 1
    done
    docker logs --tail 30 "$1"; echo "FAIL: $1 is $(docker inspect -f '{{.State.Health.Status}}' "$1")"; return 1
}

browse() {  # url: the word page and the PE page in Chromium, no exception; then two learners' replicas
    "$PY" - "$1" <<'PY'
import sys, tempfile
from playwright.sync_api import sync_playwright
from labtools.browser import launch_chromium, wait_until_idle
from labtools.replicas import REPLICA_HEADER

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

memory() {  # containers: what `docker stats` shows for each, and its page cache and anonymous memory (MiB)
    "$PY" - "$@" <<'PY'
import sys
from benchmarks.replica_memory import cgroup_memory, docker, process_memory
for c in sys.argv[1:]:
    name, cid, pid = docker("inspect", "-f", "{{.Name}} {{.Id}} {{.State.Pid}}", c).split()
    g, p = cgroup_memory(cid), process_memory(int(pid))
    print(f"    {name[1:]}: docker stats {g['stats']:.0f} MiB (page cache {g['cache']:.0f}, anon {g['anon']:.0f});"
          f" main process RSS {p['VmRSS']:.0f} (anon {p['RssAnon']:.0f}, file {p['RssFile']:.0f})")
PY
}

if has build; then
    start=$(date +%s)
    docker build --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t emblab . >/tmp/emblab-build.log
    echo "App image build: $(since "$start") s (layers already cached count as done);" \
        "$(grep -m1 'Sending build context' /tmp/emblab-build.log)"
    start=$(date +%s)
    docker build -q --network host --build-arg BASE="$BASE" -f deploy/proxy.Dockerfile -t emblab-proxy . >/dev/null
    echo "Proxy image build: $(since "$start") s"
    # A one-line page change, made in a copy of the build context so that the working tree stays as it is.
    ctx=$(mktemp -d)
    tar -c --exclude=.git --exclude=.venv --exclude=.ruff_cache --exclude=.pytest_cache --exclude=wheels . \
        | tar -x -C "$ctx"
    # the copy as it is first (other files may have changed since the build above), then the one-line change
    docker build -q --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t emblab:touched "$ctx" >/dev/null
    echo "# a one-line change" >>"$ctx/lessons/word_embeddings/word_embeddings.py"
    start=$(date +%s)
    docker build --network host --build-arg BASE="$BASE" --build-arg OFFLINE=1 -t emblab:touched "$ctx" \
        >/tmp/emblab-rebuild.log
    echo "Rebuild after a one-line page change: $(since "$start") s; steps not taken from the cache:"
    awk '/^Step /{if (s && !c && s !~ / : (FROM|ARG) /) print "    " s; s=$0; c=0} /Using cache/{c=1}
         END{if (s && !c) print "    " s}' \
        /tmp/emblab-rebuild.log
    rm -rf "$ctx"
    docker image rm emblab:touched >/dev/null
    # the sources stage (FROM scratch, a few hundred kB) is the one image the classic builder leaves untagged
    docker image prune -f --filter label=org.emblab.stage=source >/dev/null
    echo "App image size: $(( $(docker image inspect -f '{{.Size}}' emblab) / 1000000 )) MB; images left dangling:" \
        "$(docker images -f dangling=true -q | wc -l)"
fi

if has run; then
    p=$(port)
    name=$PROJECT-run
    docker rm -f "$name" >/dev/null 2>&1 || true
    start=$(date +%s)
    docker run -d --name "$name" --network host emblab --server.port="$p" >/dev/null
    created=$(since "$start")
    echo "docker run --server.port=$p to healthy: $(wait_healthy "$name" 300 "$start") s (Docker's health check;" \
        "the container made in $created s)"
    memory "$name"
    docker rm -f "$name" >/dev/null
    p=$(port)
    start=$(date +%s)
    docker run -d --name "$name" --network host --read-only --tmpfs /tmp --tmpfs /home/emblab \
        -e STREAMLIT_SERVER_PORT="$p" emblab >/dev/null
    echo "Read-only root filesystem, -e STREAMLIT_SERVER_PORT=$p: healthy after $(wait_healthy "$name" 300 "$start") s"
    browse "http://127.0.0.1:$p"
    docker rm -f "$name" >/dev/null
fi

compose() { docker-compose -p "$PROJECT" -f deploy/compose.yaml "$@"; }
view() {  # container, class code: the HTTP status and body of its /_class/<code>/view, asked inside the container
    docker exec "$1" python -c 'import sys, urllib.request, urllib.error
try:
    answer = urllib.request.urlopen(f"http://127.0.0.1:8501/_class/{sys.argv[1]}/view", timeout=10)
    print(answer.status, answer.read().decode())
except urllib.error.HTTPError as err:
    print(err.code, err.read().decode())' "$2"
}
live_class() {  # a class started on the first replica, through Redis, seen by both; Redis stopped, then back
    local replicas redis code r
    replicas=$(compose ps -q emblab)
    redis=$(compose ps -q redis)
    echo "    redis: $(docker inspect -f '{{.State.Health.Status}}' "$redis") ($EMBLAB_REDIS_IMAGE)"
    code=$(docker exec "$(echo "$replicas" | head -1)" python -c \
        'from core.classroom import process_store; print(process_store().start()[0])')
    for r in $replicas; do echo "    class $code on $(docker inspect -f '{{.Name}}' "$r"): $(view "$r" "$code")"; done
    compose stop -t 5 redis >/dev/null 2>&1
    for r in $replicas; do
        echo "    Redis stopped, $(docker inspect -f '{{.Name}}' "$r"): $(view "$r" "$code"); health:" \
            "$(docker exec "$r" emblab-health 2>&1 | head -1)"
    done
    start=$(date +%s)
    compose start redis >/dev/null 2>&1
    for _ in $(seq 60); do view "$(echo "$replicas" | tail -1)" "$code" | grep -q '^200' && break; sleep 1; done
    echo "    Redis started again: the class back after $(since "$start") s;" \
        "$(for r in $replicas; do printf '%s ' "$(view "$r" "$code")"; done)"
}
if has compose || has failover; then
    p=$(port)
    export EMBLAB_PORT=127.0.0.1:$p
    trap 'compose down -t 5 >/dev/null 2>&1 || true' EXIT
    start=$(date +%s)
    compose up -d --no-build 2>&1 | tee /tmp/emblab-compose-up.log
    # each replica's memory as soon as it is first healthy
    for c in $(compose ps -q emblab); do
        echo "    $(docker inspect -f '{{.Name}}' "$c") healthy after $(wait_healthy "$c" 300 "$start") s"; memory "$c"
    done
    echo "compose up to every replica healthy: $(since "$start") s; replicas: $(compose ps -q emblab | wc -l)," \
        "restart policy: $(docker inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$(compose ps -q emblab | head -1)");" \
        "docker-compose's warnings: $(grep -ci 'warn\|ignored' /tmp/emblab-compose-up.log || true)"
    # shellcheck disable=SC2046 # one word per container
    memory $(compose ps -q)
    for _ in $(seq 60); do curl -fs "http://127.0.0.1:$p/_stcore/health" >/dev/null && break; sleep 1; done
    browse "http://127.0.0.1:$p"
    live_class
fi

if has failover; then
    victim=$(compose ps -q emblab | head -1)
    "$PY" scripts/deploy_failover.py --url "http://127.0.0.1:$p" --learners "${LEARNERS:-24}" --seconds 90 \
        --kill-at 30 --kill "kill -9 $(docker inspect -f '{{.State.Pid}}' "$victim")" \
        --healthy "docker inspect -f {{.State.Health.Status}} $victim"
    # shellcheck disable=SC2046
    memory $(compose ps -q emblab)
    # More crashes, without load: kill -9 of each replica's main process in turn, timed to healthy again
    for try in 2 3 4; do
        victim=$(compose ps -q emblab | sed -n "$(( try % 2 + 1 ))p")
        restarts=$(docker inspect -f '{{.RestartCount}}' "$victim")
        start=$(date +%s)
        kill -9 "$(docker inspect -f '{{.State.Pid}}' "$victim")"
        for _ in $(seq 120); do
            [ "$(docker inspect -f '{{.RestartCount}}' "$victim")" != "$restarts" ] && break
            sleep 1
        done
        echo "kill -9 try $try ($(docker inspect -f '{{.Name}}' "$victim")): restarted by Docker, healthy again" \
            "after $(wait_healthy "$victim" 300 "$start") s"
        memory "$victim"
    done
    # docker kill: a stop by hand, which a restart policy leaves alone (Docker's documentation: "if you manually
    # stop a container, its restart policy is ignored until the Docker daemon restarts or the container is
    # manually restarted")
    restarts=$(docker inspect -f '{{.RestartCount}}' "$victim")
    docker kill "$victim" >/dev/null
    sleep 30
    echo "docker kill of a replica, 30 s later: $(docker inspect -f '{{.State.Status}}' "$victim")," \
        "restarts $restarts -> $(docker inspect -f '{{.RestartCount}}' "$victim") (a manual stop stays stopped)"
    start=$(date +%s)
    docker start "$victim" >/dev/null
    echo "docker start of it: healthy after $(wait_healthy "$victim" 300 "$start") s"
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
    ok = err.code == 503 and "The lab is full" in page
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
    EMBLAB_PORT=$p docker stack deploy -c deploy/stack.yaml "$PROJECT" 2>&1 | tee /tmp/emblab-stack.log
    echo "docker stack deploy's warnings: $(grep -ci 'ignoring\|warn' /tmp/emblab-stack.log || true)"
    for _ in $(seq 600); do
        [ "$(docker service ls --filter name="${PROJECT}_emblab" --format '{{.Replicas}}')" = 2/2 ] \
            && curl -fs "http://127.0.0.1:$p/_stcore/health" >/dev/null 2>&1 && break
        sleep 1
    done
    docker service ls --filter name="$PROJECT"
    curl -fs "http://127.0.0.1:$p/_stcore/health" >/dev/null || {
        docker service ps --no-trunc "${PROJECT}_emblab" "${PROJECT}_proxy" | head; echo "FAIL: no answer"; exit 1; }
    echo "docker stack deploy to the proxy answering with 2 replicas: $(since "$start") s"
    browse "http://127.0.0.1:$p"
    # A swarm replaces a task whose container ends for any reason (restart_policy: any), docker kill included.
    container=$(docker ps -q --filter name="${PROJECT}_emblab" | head -1)
    start=$(date +%s)
    docker kill "$container" >/dev/null
    for _ in $(seq 600); do
        [ "$(docker ps --filter name="${PROJECT}_emblab" --filter health=healthy -q | wc -l)" = 2 ] && break
        sleep 1
    done
    echo "Swarm: docker kill of a replica's container: 2 healthy replicas again after $(since "$start") s"
fi
