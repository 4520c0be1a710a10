# The Transformer Embedding Lab, served on port 8501.
#   docker build -t emblab .                         # CPU torch (PyTorch's CPU index)
#   docker build -t emblab --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu128 .   # CUDA torch
#   docker build -t emblab --build-arg OFFLINE=1 .   # only the wheels in ./wheels (scripts/docker_smoke.sh)
#   docker run -p 8501:8501 emblab
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

# The sources, gathered in a stage of their own so the final image gets them in one layer.
FROM ${BASE} AS source
WORKDIR /app
COPY app.py ./
COPY .streamlit/ .streamlit/
COPY core/ core/
COPY figures/ figures/
COPY lessons/ lessons/
COPY locales/ locales/
COPY ui/ ui/
COPY data/ data/

FROM ${BASE}
# MALLOC_ARENA_MAX: two malloc arenas for all session threads; OMP_NUM_THREADS: one CPU thread per torch op
# (see scripts/run.sh)
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/tmp/numba \
    EMBLAB_VECTORS_DIR=/data/vectors \
    MALLOC_ARENA_MAX=2 \
    OMP_NUM_THREADS=1
RUN useradd --create-home --uid 10001 emblab && mkdir -p /data/vectors && chown emblab /data/vectors
COPY --from=build /opt/venv /opt/venv
COPY --from=source /app /app
COPY scripts/docker_entrypoint.sh /usr/local/bin/emblab
WORKDIR /app
USER 10001
EXPOSE 8501
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
ENTRYPOINT ["/usr/local/bin/emblab"]
