#!/usr/bin/env bash
# Install the app into .venv at the repo root and serve it on http://127.0.0.1:8501.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
.venv/bin/python -m pip install -q -r requirements.txt
.venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
# The server's environment, as the image and the tests' servers have it (serving.env says why each).
. scripts/serving_env.sh
exec .venv/bin/python serve.py "$@"  # `streamlit run serve.py`: app.py, as the image and the tests serve it
