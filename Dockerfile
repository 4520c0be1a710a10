# The Transformer Embedding Lab, served on port 8501. docs/deploy.md says how to build and run it:
#   docker build -t emblab .                 # CPU torch from PyTorch's CPU index, the rest from PyPI
#   docker run -p 8501:8501 emblab
# Offline (no registry, no PyPI): a local base image and ./wheels served on the host's 127.0.0.1:8765, then
#   docker build --network host --build-arg BASE=emblab-base:bookworm --build-arg OFFLINE=1 -t emblab .
# The wheels are not in the build context (.dockerignore): pip fetches them over HTTP, so no layer keeps a copy.
# One stage makes the image, so no build stage is left behind: the packages (one RUN), then numba's cache (from
# core/ alone), then the sources in one layer: a page change rebuilds that last layer alone.
ARG BASE=python:3.11-slim

# The sources and the two entry scripts, gathered so that the image gets them in one layer (under the vfs storage
# driver every layer is a full copy of the ones below). FROM scratch: a stage of a few hundred kB.
FROM scratch AS source
# the label lets the scripts prune this stage's image, which the classic builder leaves untagged
LABEL org.emblab.stage=source
COPY app.py serve.py /app/
COPY .streamlit/ /app/.streamlit/
COPY core/ /app/core/
COPY figures/ /app/figures/
COPY lessons/ /app/lessons/
COPY locales/ /app/locales/
COPY ui/ /app/ui/
COPY data/ /app/data/
COPY scripts/warm_up.py scripts/docker_healthcheck.py /app/scripts/
COPY scripts/docker_entrypoint.sh /usr/local/bin/emblab
COPY scripts/docker_healthcheck.py /usr/local/bin/emblab-health

FROM ${BASE} AS packages
# MALLOC_ARENA_MAX, OMP_NUM_THREADS: the server's environment, declared in serving.env (which says why) and repeated
# here, as ENV cannot read a file (tests/test_serving.py checks they are equal). PYTHONPYCACHEPREFIX: the .pyc files of what the server imports, written there on the first
# start and read on every restart of the container (the image carries none: they would add 95 MB).
# Every RUN below removes /tmp/pycache again: .pyc files written there by the build (pip's, the standard
# library's: 39 MB) would be root's, so the server (user emblab) could not write its own beside them.
# EMBLAB_CACHE_DIR: GloVe's unit rows (80 MB), written there on the first start (scripts/warm_up.py); compose and
# a swarm mount one volume there for all the replicas on a machine, which then share one copy.
# STREAMLIT_SERVER_PORT: the port the entry point serves on and the health check asks.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONPYCACHEPREFIX=/tmp/pycache \
    NUMBA_CACHE_DIR=/tmp/numba \
    NUMBA_CPU_NAME=generic \
    EMBLAB_CACHE_DIR=/opt/emblab-cache \
    EMBLAB_VECTORS_DIR=/data/vectors \
    MALLOC_ARENA_MAX=2 \
    OMP_NUM_THREADS=1 \
    STREAMLIT_SERVER_PORT=8501
RUN useradd --create-home --uid 10001 emblab && mkdir -p /data/vectors /opt/emblab-cache \
    && chown emblab /data/vectors /opt/emblab-cache
# Metadata before any COPY: these lines never rebuild when the sources change.
WORKDIR /app
EXPOSE 8501
# emblab-health asks the port the server was started with (--server.port or STREAMLIT_SERVER_PORT): it passes once
# the lab serves, and fails while the warm-up runs, saying "starting" and the step. The start period is the
# warm-up's worst case measured under load with a margin (docs/deploy.md, "Starting": 525 s, 900 s).
HEALTHCHECK --interval=15s --timeout=5s --start-period=900s --retries=3 CMD ["emblab-health"]
ENTRYPOINT ["/usr/local/bin/emblab"]
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
# OFFLINE=1: pip reads the wheels at WHEELS alone (default http://127.0.0.1:8765/, ./wheels served on the host).
ARG OFFLINE=0
ARG WHEELS=
COPY requirements.txt requirements-nodeps.txt scripts/docker_slim.sh /tmp/emblab/
# scripts/docker_slim.sh then takes out what the lab never imports or loads (docs/deploy.md, "Image size").
# hadolint ignore=SC2086
RUN set -eu; \
    if [ "$OFFLINE" = 1 ]; then \
        WHEELS=${WHEELS:-http://127.0.0.1:8765/}; \
        python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)" "$WHEELS" \
            || { echo "No wheels at $WHEELS: serve ./wheels there (docs/deploy.md, Offline builds)" >&2; exit 1; }; \
        pip="--no-index --find-links $WHEELS"; \
    else \
        pip="--extra-index-url $TORCH_INDEX ${WHEELS:+--find-links $WHEELS}"; \
    fi; \
    python3 -m venv /opt/venv; \
    pip="/opt/venv/bin/pip install --no-cache-dir --no-compile --disable-pip-version-check $pip"; \
    $pip -r /tmp/emblab/requirements.txt; \
    $pip --no-deps -r /tmp/emblab/requirements-nodeps.txt; \
    OFFLINE=$OFFLINE WHEELS=$WHEELS sh /tmp/emblab/docker_slim.sh /opt/venv; \
    rm -rf /tmp/emblab /root/.cache /tmp/pycache
# UMAP's numba code compiled once, from core/ alone so that a page change does not redo it, for a generic x86-64
# CPU so that the cache serves on any machine (scripts/warm_up.py --core; the entry point copies it to
# $NUMBA_CACHE_DIR, which numba needs writable).
COPY core/ /app/core/
COPY scripts/warm_up.py /app/scripts/
RUN NUMBA_CACHE_DIR=/opt/numba-cache python3 -B scripts/warm_up.py --core \
    && rm -rf /app/core /app/scripts /tmp/pycache /tmp/torchinductor_root

FROM packages
USER 10001
# The sources last: a one-line page change rebuilds this layer alone. The whole stage: /app and the two scripts.
# hadolint ignore=DL3067
COPY --from=source / /
