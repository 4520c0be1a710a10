# The Transformer Embedding Lab, served on port 8501.
#   docker build -t emblab .                         # CPU torch (PyTorch's CPU index)
#   docker build -t emblab --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu128 .   # CUDA torch
#   docker build -t emblab --build-arg OFFLINE=1 .   # only the wheels in ./wheels (scripts/docker_smoke.sh)
#   docker run -p 8501:8501 emblab
#   docker run -p 9000:9000 emblab --server.port=9000   # another port (or -e STREAMLIT_SERVER_PORT=9000)
# Layers are ordered so that a change to a page rebuilds only the last one.
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG OFFLINE=0
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements.txt requirements-nodeps.txt /tmp/
COPY wheels/ /wheels/
RUN python3 -m venv /opt/venv \
    && if [ "$OFFLINE" = 1 ]; then \
        pip="/opt/venv/bin/pip install --no-index --find-links /wheels"; \
    else \
        pip="/opt/venv/bin/pip install --find-links /wheels --extra-index-url $TORCH_INDEX"; \
    fi \
    && $pip -r /tmp/requirements.txt \
    && $pip --no-deps -r /tmp/requirements-nodeps.txt \
    && find /opt/venv -name __pycache__ -prune -exec rm -rf {} +

# The sources, gathered in a stage of their own so the final image gets them in one layer. FROM scratch: under
# the vfs storage driver each layer is a full copy of the ones below, so these stay the size of the sources.
FROM scratch AS source
COPY app.py /app/
COPY .streamlit/ /app/.streamlit/
COPY core/ /app/core/
COPY figures/ /app/figures/
COPY lessons/ /app/lessons/
COPY locales/ /app/locales/
COPY ui/ /app/ui/
COPY data/ /app/data/
COPY scripts/warm_up.py /app/scripts/

# UMAP's numba code compiled once, for a generic x86-64 CPU so that the cache serves on any machine, not only the
# builder's (scripts/warm_up.py --core; the entry point copies it to $NUMBA_CACHE_DIR, which numba needs writable).
# Its own stage, from the packages and core/ alone: a page change does not redo it.
FROM build AS numba
COPY core/ /app/core/
COPY scripts/warm_up.py /app/scripts/
RUN NUMBA_CACHE_DIR=/opt/numba-cache NUMBA_CPU_NAME=generic OMP_NUM_THREADS=1 /opt/venv/bin/python /app/scripts/warm_up.py --core
# The bundled GloVe's unit rows, written once here (core.glove.shared_unit): every container on a machine then maps
# the same file from the image instead of writing its own.
RUN PYTHONPATH=/app EMBLAB_CACHE_DIR=/opt/emblab-cache /opt/venv/bin/python -c "from core.glove import load_bundled; load_bundled().unit"

FROM ${BASE}
# MALLOC_ARENA_MAX: two malloc arenas for all session threads; OMP_NUM_THREADS: one CPU thread per torch op
# (see scripts/run.sh). STREAMLIT_SERVER_PORT: the port the entry point serves on and the health check asks.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/tmp/numba \
    NUMBA_CPU_NAME=generic \
    EMBLAB_CACHE_DIR=/opt/emblab-cache \
    EMBLAB_VECTORS_DIR=/data/vectors \
    MALLOC_ARENA_MAX=2 \
    OMP_NUM_THREADS=1 \
    STREAMLIT_SERVER_PORT=8501
RUN useradd --create-home --uid 10001 emblab && mkdir -p /data/vectors && chown emblab /data/vectors
# Metadata before any COPY: these lines never rebuild when the sources change.
WORKDIR /app
USER 10001
EXPOSE 8501
# emblab-health asks the port the server was started with (--server.port or STREAMLIT_SERVER_PORT).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["emblab-health"]
ENTRYPOINT ["/usr/local/bin/emblab"]
COPY scripts/docker_entrypoint.sh /usr/local/bin/emblab
COPY scripts/docker_healthcheck.py /usr/local/bin/emblab-health
COPY --from=build /opt/venv /opt/venv
# Build-time work that needs only the packages (compiling UMAP's numba code) belongs here, above the sources,
# so that a page change does not redo it.
COPY --from=numba /opt/numba-cache /opt/numba-cache
COPY --from=numba /opt/emblab-cache /opt/emblab-cache
# The sources last: a one-line page change rebuilds this layer alone.
COPY --from=source /app /app
