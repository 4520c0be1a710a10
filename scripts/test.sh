#!/usr/bin/env bash
# Install everything the tests need (dev packages into .venv, Debian's chromium and haproxy) and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's chromium (browser tests) and haproxy (tests/browser/test_proxy.py, tests/deploy/)
missing=""
[ -x /usr/bin/chromium ] || missing="chromium"
[ -x /usr/sbin/haproxy ] || missing="$missing haproxy"
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
# --no-compile: a process compiles the modules it imports when it first imports them (pip compiling every file of
# every package took 155 s of a fresh install instead of 67 s)
.venv/bin/python -m pip install -q --no-compile -r requirements-dev.txt
.venv/bin/python -m pip install -q --no-compile --no-deps -r requirements-nodeps.txt
.venv/bin/python -m labtools.axe  # axe-core from npm (pinned, sha512-checked) into .axe-core/ for the a11y test
.venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .
.venv/bin/hadolint --failure-threshold error Dockerfile deploy/proxy.Dockerfile
# The types of core/, figures/, ui/, lessons/ and labtools/ (pyproject.toml's [tool.mypy]), checked beside the tests: a cold mypy spends
# about 90 s reading torch's and Streamlit's types; its report comes after the tests'.
types_log=$(mktemp)
.venv/bin/python -m mypy >"$types_log" 2>&1 &
types_pid=$!
# Three processes (EMBLAB_TEST_WORKERS) on CI's two cores, each test file in one of them: a file's fixtures (a
# server, a browser) serve its tests, and much of a browser test is waiting on its server or Chromium, which a third
# process fills (a browser-heavy sixth of the suite: 363 s with two, 319 s with four). The longest files start first
# (tests/conftest.py: LONGEST_FIRST); the 25 slowest tests are printed, to keep that list true.
tests=0
.venv/bin/python -m pytest -n "${EMBLAB_TEST_WORKERS:-3}" --dist loadfile --durations=25 "$@" || tests=$?
types=0
wait "$types_pid" || types=$?
echo "mypy:" && cat "$types_log" && rm -f "$types_log"
[ "$types" = 0 ] || echo "mypy found type errors (above)"
[ "$tests" = 0 ] && [ "$types" = 0 ]
