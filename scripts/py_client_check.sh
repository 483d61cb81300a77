#!/usr/bin/env bash
# The Python client (clients/python): generated from the committed openapi.json with
# openapi-python-client (client-config.yaml, --fail-on-warning) into clients/python/
# gpucost-client, built into a wheel and an sdist with `uv build` (into $CLIENT_ARTIFACTS,
# default dist/clients), the wheel installed into a fresh directory, and that installed
# package run against the live server at $1 (scripts/client_check.py).
#   bash scripts/py_client_check.sh http://127.0.0.1:8000
set -euo pipefail
BASE=${1:?usage: py_client_check.sh BASE_URL}
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
OUT=${CLIENT_ARTIFACTS:-dist/clients}
GEN=clients/python/gpucost-client
mkdir -p "$OUT"
rm -rf "$GEN" "$OUT"/gpucost_client-*
# The generator runs ruff as a post-hook: the venv's.
PATH="$(cd "$BIN" && pwd):$PATH" "$BIN/openapi-python-client" generate --path openapi.json \
  --config client-config.yaml --meta uv --fail-on-warning --output-path "$GEN" >/dev/null
"$BIN/uv" build --quiet --out-dir "$OUT" "$GEN"
SITE=$(mktemp -d)
trap 'rm -rf "$SITE"' EXIT
"$BIN/uv" pip install --quiet --no-deps --python "$BIN/python" --target "$SITE" "$OUT"/gpucost_client-*.whl
PYTHONPATH="$SITE" "$BIN/python" scripts/client_check.py "$BASE"
ls "$OUT"/gpucost_client-*
