#!/usr/bin/env bash
# Install everything the tests need (dev packages into .venv, Debian's chromium) and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
.venv/bin/python -m pip install -q -r requirements-dev.txt
.venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
.venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .
.venv/bin/hadolint --failure-threshold error Dockerfile
exec .venv/bin/python -m pytest "$@"
