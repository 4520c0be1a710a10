#!/bin/sh
# The image's entry point: refuses to run as root unless EMBLAB_ALLOW_ROOT=1, warms the process up, then serves on
# 0.0.0.0, port $STREAMLIT_SERVER_PORT (8501; `--server.port=N` after the image name overrides it, and the
# HEALTHCHECK follows).
set -eu
if [ "$(id -u)" = 0 ] && [ "${EMBLAB_ALLOW_ROOT:-0}" != 1 ]; then
    echo "emblab: refusing to run as root. Drop --user root (the image runs as 'emblab'), or set EMBLAB_ALLOW_ROOT=1." >&2
    exit 1
fi
# The .pyc files of what the server imports go to $PYTHONPYCACHEPREFIX (under /tmp), so a restarted container
# reads them instead of compiling every module again; where /tmp is in memory (docker run --tmpfs /tmp) they would
# hold about 95 MB of it, so there Python compiles in memory as it goes.
if [ "$(stat -f -c %T /tmp 2>/dev/null)" = tmpfs ]; then
    export PYTHONDONTWRITEBYTECODE=1
fi
# UMAP's numba code, compiled when the image was built. numba ignores a cache folder it cannot write to, so the
# image's copy goes to $NUMBA_CACHE_DIR; if that fails, the warm-up compiles it instead.
if [ -d /opt/numba-cache ] && [ -n "${NUMBA_CACHE_DIR:-}" ]; then
    mkdir -p "$NUMBA_CACHE_DIR" && cp -R /opt/numba-cache/. "$NUMBA_CACHE_DIR"/ || true
fi
# `python3 serve.py` serves app.py (Streamlit's JavaScript gzipped) as scripts/run.sh and the tests serve it; with
# --warm-up (scripts/warm_up.py), it first loads GloVe and the MiniLM tables and runs UMAP and Train once in this
# process, then serves from it: the port opens only once no learner would wait for a cold start, and the health check
# fails ("starting: ...", inside the start period) until then. EMBLAB_WARM_UP=0 serves at once instead.
warm_up=""
if [ "${EMBLAB_WARM_UP:-1}" = 1 ]; then
    warm_up="--warm-up"
fi
exec python3 serve.py $warm_up --server.address=0.0.0.0 --server.port="${STREAMLIT_SERVER_PORT:-8501}" "$@"
