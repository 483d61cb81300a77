#!/usr/bin/env bash
# The TypeScript client (clients/typescript): generated from the committed openapi.json with
# openapi-typescript, type-checked with `tsc --strict` (plus noUncheckedIndexedAccess and
# exactOptionalPropertyTypes), then run against the live server at $1: it computes seed
# 001's break-even and checks a typed 422 problem and a catalog read.
#   bash scripts/ts_client_check.sh http://127.0.0.1:8000
set -euo pipefail
BASE=${1:?usage: ts_client_check.sh BASE_URL}
cd "$(dirname "$0")/../clients/typescript"
bash ../../scripts/ensure_node.sh >/dev/null
npm ci --no-audit --no-fund --loglevel=error >/dev/null
npm run -s generate >/dev/null
npm run -s build
node dist/check.js "$BASE"
