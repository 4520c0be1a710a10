#!/usr/bin/env bash
# Install what the tests and the smoke checks need: Debian's chromium and haproxy, and .venv with the dev packages
# (requirements-dev.txt, then requirements-nodeps.txt without dependencies) and axe-core. scripts/test.sh and
# scripts/docker_smoke.sh run it; it installs only what is missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's chromium (browser tests), haproxy (tests/browser/test_proxy.py, tests/deploy/) and redis-server (the class
# store: tests/core/test_classroom.py, tests/browser/test_live_class.py)
missing=""
[ -x /usr/bin/chromium ] || missing="chromium"
[ -x /usr/sbin/haproxy ] || missing="$missing haproxy"
[ -x /usr/bin/redis-server ] || missing="$missing redis-server"
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
