# Sourced by scripts/run.sh: exports the server's environment from serving.env (one NAME=value a line), each
# variable unless it is already set, so that `MALLOC_ARENA_MAX=4 bash scripts/run.sh` still wins.
while IFS='=' read -r name value || [ -n "$name" ]; do
  case "$name" in '' | '#'*) continue ;; esac
  export "$name=${!name:-$value}"
done <"$(dirname "${BASH_SOURCE[0]}")/../serving.env"
