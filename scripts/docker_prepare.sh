# Sourced by scripts/docker_smoke.sh and scripts/deploy_check.sh (run as root), on a machine like the project's
# (Debian, no registry reachable). It
#   1. starts dockerd (vfs storage driver) when none answers;
#   2. sets BASE: $BASE if given, else python:3.11-slim if it can be pulled, else a local Debian bookworm made
#      with debootstrap and `docker import` (emblab-base:bookworm);
#   3. fills ./wheels: `pip download --only-binary=:all:` of requirements.txt and requirements-nodeps.txt with
#      this machine's pip (its CPU torch wheel included), for an OFFLINE=1 build that uses nothing else.
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
            rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
            tar -C "$root" -c . | docker import - "$BASE"
            rm -rf "$root"
        fi
    fi
fi
export BASE
echo "Base image: $BASE"

# This machine's pip downloads for its own Python: run it where that is CPython 3.11 on Linux x86_64, or add
# --python-version 3.11 --platform manylinux_2_28_x86_64 (and the CPU torch wheel by hand).
pip download --quiet --only-binary=:all: -r requirements.txt -d wheels
pip download --quiet --only-binary=:all: --no-deps -r requirements-nodeps.txt -d wheels
