#!/usr/bin/env bash
# Install everything the tests need (dev packages into .venv, Debian's chromium, haproxy and redis-server) and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_dev.sh
.venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .
.venv/bin/hadolint --failure-threshold error Dockerfile deploy/proxy.Dockerfile
# The types of every Python file of the repository (pyproject.toml's [tool.mypy]), checked beside the tests: a cold
# mypy spends most of its time reading torch's and Streamlit's types, and ends well before the tests; its report
# comes after theirs.
types_log=$(mktemp)
.venv/bin/python -m mypy >"$types_log" 2>&1 &
types_pid=$!
# Three processes (EMBLAB_TEST_WORKERS) on CI's two cores, each test file in one of them: a file's fixtures (a
# server, a browser) serve its tests, and much of a browser test is waiting on its server or Chromium, which a third
# process fills (a browser-heavy sixth of the suite: 363 s with two, 319 s with four). The 25 slowest tests are
# printed, to see where the time goes.
tests=0
.venv/bin/python -m pytest -n "${EMBLAB_TEST_WORKERS:-3}" --dist loadfile --durations=25 "$@" || tests=$?
types=0
wait "$types_pid" || types=$?
echo "mypy:" && cat "$types_log" && rm -f "$types_log"
[ "$types" = 0 ] || echo "mypy found type errors (above)"
[ "$tests" = 0 ] && [ "$types" = 0 ]
