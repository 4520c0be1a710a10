#!/usr/bin/env bash
# Install the app into .venv at the repo root and serve it on http://127.0.0.1:8501.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
.venv/bin/python -m pip install -q -r requirements.txt
.venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
# Two malloc arenas, not glibc's 8 per core: every session's script thread otherwise keeps its own arena's
# freed memory (20 learners: +115 MiB against +41 MiB in a browser load test, see the README).
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
# One CPU thread per torch op, not one per core: the pages' tensors are small, and waiting for a second thread
# while the browser or other learners use the cores made a PE slider move slower (README, Deploy with Docker).
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
exec .venv/bin/python -m streamlit run serve.py "$@"  # app.py, its JavaScript gzipped (serve.py)
