# Sourced by scripts/docker_smoke.sh and scripts/deploy_check.sh (run as root), on a machine like the project's
# (Debian, no registry reachable): everything an offline build needs (docs/deploy.md, "Offline builds"). It
#   1. starts dockerd (vfs storage driver, log in /tmp/emblab-dockerd.log) when none answers;
#   2. sets BASE: $BASE if given, else python:3.11-slim if it can be pulled, else a local Debian bookworm made
#      with debootstrap and `docker import` (emblab-base:bookworm), without its manuals and translations;
#   3. fills ./wheels: `pip download --only-binary=:all:` of requirements.txt and requirements-nodeps.txt with
#      this machine's pip (its CPU torch wheel included), and ./wheels/debs: binutils' .deb files for $BASE,
#      fetched in a container of it (the build strips the libraries' debug symbols with them, then removes them);
#   4. serves ./wheels on http://127.0.0.1:8765/ (python3 -m http.server, pid in /tmp/emblab-wheels.pid), where
#      an OFFLINE=1 build reads them (`docker build --network host`): they never enter a build context;
#   5. sets EMBLAB_REDIS_IMAGE, the live class's store for deploy/compose.yaml and deploy/stack.yaml: $EMBLAB_REDIS_IMAGE
#      if given, else redis:7.4-alpine if it can be pulled, else emblab-redis:bookworm, $BASE with Debian's
#      redis-server (redis-cli beside it, for the health check) and /data as its working folder, as the official
#      image has.
# The wheels must match the image: CPython 3.11 on Linux x86_64 (bookworm's python3 is 3.11).

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
            # what a server never reads: apt's downloads and lists, manuals, documentation, translations (52 MB)
            rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
                "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
            tar -C "$root" -c . | docker import - "$BASE"
            rm -rf "$root"
        fi
    fi
fi
export BASE
echo "Base image: $BASE"

# This machine's pip downloads for its own Python: run it where that is CPython 3.11 on Linux x86_64, or add
# --python-version 3.11 --platform manylinux_2_28_x86_64 (and the CPU torch wheel by hand).
# Skipped when neither requirements file changed since the last download (wheels/.downloaded).
if [ ! -f wheels/.downloaded ] || [ requirements.txt -nt wheels/.downloaded ] \
        || [ requirements-nodeps.txt -nt wheels/.downloaded ]; then
    pip download --quiet --only-binary=:all: -r requirements.txt -d wheels
    pip download --quiet --only-binary=:all: --no-deps -r requirements-nodeps.txt -d wheels
    touch wheels/.downloaded
fi
if ! ls wheels/debs/binutils_*.deb >/dev/null 2>&1; then
    mkdir -p wheels/debs
    # binutils and what it needs that $BASE lacks, for $BASE's Debian release
    docker run --rm --network host --user root -v "$PWD/wheels/debs:/debs" --entrypoint sh "$BASE" -c '
        apt-get update -qq && cd /debs && apt-get download -qq $(apt-cache depends --recurse --no-recommends \
            --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances binutils | grep "^[a-z]" \
            | sort -u | while read -r p; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)' \
        || echo "No binutils .deb files for $BASE: the image keeps its libraries' debug symbols (+170 MB)"
fi
if ! python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:8765/", timeout=2)' 2>/dev/null; then
    # The server outlives this script: it must not inherit a lock the caller holds (flock /tmp/emblab-bench.lock
    # bash scripts/docker_smoke.sh would otherwise stay locked until the server ends), so it closes every file
    # descriptor past stderr before it starts. Its command line: python3 -m http.server --directory wheels 8765
    python3 -c 'import os, sys; os.closerange(3, 65536); os.execvp(sys.executable, [sys.executable, *sys.argv[1:]])' \
        -m http.server --bind 127.0.0.1 --directory wheels 8765 >/tmp/emblab-wheels.log 2>&1 &
    echo $! >/tmp/emblab-wheels.pid
    for _ in $(seq 20); do
        python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:8765/", timeout=2)' 2>/dev/null \
            && break
        sleep 0.5
    done
fi
echo "Wheels: ./wheels served on http://127.0.0.1:8765/"

if [ -z "${EMBLAB_REDIS_IMAGE:-}" ]; then
    if docker pull redis:7.4-alpine >/dev/null 2>&1; then
        EMBLAB_REDIS_IMAGE=redis:7.4-alpine
    else
        EMBLAB_REDIS_IMAGE=emblab-redis:bookworm
        if ! docker image inspect "$EMBLAB_REDIS_IMAGE" >/dev/null 2>&1; then
            echo "No registry: making $EMBLAB_REDIS_IMAGE from $BASE with Debian's redis-server"
            printf '%s\n' "FROM $BASE" \
                "RUN apt-get update -qq && apt-get install -qq -y --no-install-recommends redis-server \\" \
                "    && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* && mkdir /data" \
                "WORKDIR /data" "EXPOSE 6379" 'CMD ["redis-server"]' \
                | docker build --network host -q -t "$EMBLAB_REDIS_IMAGE" - >/dev/null
        fi
    fi
fi
export EMBLAB_REDIS_IMAGE
echo "Redis image: $EMBLAB_REDIS_IMAGE"
