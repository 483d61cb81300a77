#!/usr/bin/env bash
# Run a command with N CPU-bound processes beside it (gpucost issue 48: the suite must pass on
# a busy machine; .ci/run runs `make test` this way):
#   bash scripts/with_cpu_load.sh 2 make test
# Each process is a shell loop that never sleeps; all are stopped when the command ends,
# whatever its exit status, which is the script's own.
set -euo pipefail
n=$1
shift
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq 1 "$n"); do
  sh -c 'while :; do :; done' &
  pids+=("$!")
done
echo "== $n CPU-bound processes beside: $*"
"$@"
