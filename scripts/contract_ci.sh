#!/usr/bin/env bash
# Contract checks against a real uvicorn server (run by `make contract`, called from .ci/run):
#  1. schemathesis CLI, all checks, 200 examples per operation, fixed seed, JUnit report;
#  2. the Python client (clients/python): generated from the committed openapi.json
#     (--fail-on-warning), built into a wheel and an sdist, the installed wheel used against
#     the live server by scripts/client_check.py (scripts/py_client_check.sh);
#  3. the TypeScript client (clients/typescript): generated from it (openapi-typescript +
#     openapi-fetch), type-checked with tsc --strict, run against the live server and packed
#     as an npm tarball (scripts/ts_client_check.sh).
# Both packages land in dist/clients/ ($CLIENT_ARTIFACTS), the artefacts CI keeps.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
export PATH="$(cd "$BIN" && pwd):$PATH"  # the client generator runs ruff as a post-hook
WORK=$(mktemp -d)
REPORTS=${REPORTS:-reports}
mkdir -p "$REPORTS"
export GPUCOST_DATABASE_URL="sqlite:///$WORK/contract.db"
export GPUCOST_LOG_LEVEL=WARNING  # no access line per fuzzed request in the CI log
# Schemathesis sends ~18,000 requests from one address in minutes: limits far above that,
# so the limiter runs on every request but the contract is checked, not the limit.
for name in ANONYMOUS ANONYMOUS_HEAVY KEY KEY_HEAVY; do export "GPUCOST_RATE_LIMIT_$name=1000000/minute"; done
PORT=${CONTRACT_PORT:-$("$BIN/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}
BASE="http://127.0.0.1:$PORT"

"$BIN/gpucost" migrate >/dev/null 2>&1
"$BIN/gpucost" seed >/dev/null
# The generated client saves a scenario: that needs an API key with the `scenarios` scope.
GPUCOST_CLIENT_KEY=$("$BIN/gpucost" keys create "contract client" --scope scenarios 2>/dev/null)
export GPUCOST_CLIENT_KEY
"$BIN/uvicorn" app.main:app --host 127.0.0.1 --port "$PORT" --log-level warning &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do
  curl -sf "$BASE/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -sf "$BASE/readyz" >/dev/null

echo "== schemathesis against $BASE"
# The full log goes to reports/schemathesis.log (printed whole if the run fails): its closing
# "== N warnings in Ns ==" line looks like a pytest summary with no tests in it.
# --request-timeout 30: heavy work (plans, charts, reports) waits at most render_timeout_s (10 s)
# for its turn and then answers 503, so a client must wait longer than that to see the answer
# (at schemathesis's default 10 s, a starved request's 503 raced the client's own timeout).
if "$BIN/schemathesis" run "$BASE/openapi.json" --checks all --max-examples 200 --seed "${SCHEMATHESIS_SEED:-1}" \
  --request-timeout 30 \
  --report junit --report-junit-path "$REPORTS/schemathesis.xml" --no-color >"$REPORTS/schemathesis.log" 2>&1; then
  grep -E "generated|Selected|Tested" "$REPORTS/schemathesis.log" | sed 's/^ */schemathesis: /'
else
  cat "$REPORTS/schemathesis.log"; exit 1
fi

echo "== generated Python client"
bash scripts/py_client_check.sh "$BASE"

echo "== generated TypeScript client"
bash scripts/ts_client_check.sh "$BASE"
