#!/bin/sh
# The image's entry point: refuses to run as root unless EMBLAB_ALLOW_ROOT=1, then serves on 0.0.0.0, port
# $STREAMLIT_SERVER_PORT (8501; `--server.port=N` after the image name overrides it, and the HEALTHCHECK follows).
set -eu
if [ "$(id -u)" = 0 ] && [ "${EMBLAB_ALLOW_ROOT:-0}" != 1 ]; then
    echo "emblab: refusing to run as root. Drop --user root (the image runs as 'emblab'), or set EMBLAB_ALLOW_ROOT=1." >&2
    exit 1
fi
exec streamlit run app.py --server.address=0.0.0.0 --server.port="${STREAMLIT_SERVER_PORT:-8501}" "$@"
