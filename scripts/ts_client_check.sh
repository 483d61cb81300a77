#!/usr/bin/env bash
# The TypeScript client (clients/typescript): generated from the committed openapi.json with
# openapi-typescript, type-checked with `tsc --strict` (plus noUncheckedIndexedAccess and
# exactOptionalPropertyTypes), then run against the live server at $1: it computes seed
# 001's break-even and checks a typed 422 problem and a catalog read; then packed as an npm
# tarball (gpucost-client-<version>.tgz: the typed client and its types) into
# $CLIENT_ARTIFACTS (default dist/clients at the repository root).
#   bash scripts/ts_client_check.sh http://127.0.0.1:8000
set -euo pipefail
BASE=${1:?usage: ts_client_check.sh BASE_URL}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${CLIENT_ARTIFACTS:-dist/clients}
case "$OUT" in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
mkdir -p "$OUT"
cd "$ROOT/clients/typescript"
bash ../../scripts/ensure_node.sh >/dev/null
npm ci --no-audit --no-fund --loglevel=error >/dev/null
npm run -s generate >/dev/null
npm run -s build
node dist/check.js "$BASE"
rm -f "$OUT"/gpucost-client-*.tgz
npm pack --silent --pack-destination "$OUT" >/dev/null
ls "$OUT"/gpucost-client-*.tgz
