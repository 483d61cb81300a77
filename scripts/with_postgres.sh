#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL server (used by .ci/run around `make test`):
#   bash scripts/with_postgres.sh make test
# Installs PostgreSQL from apt when it is missing (a fresh machine has only Python, make, gcc
# and apt), then runs the command under `pg_virtualenv -t`, which creates a temporary cluster
# in a temporary directory (no clash with other clusters, even as root),
# starts it, and drops it when the command ends. The command sees
#   GPUCOST_TEST_POSTGRES_URL=postgresql+psycopg://postgres:<pw>@localhost:<port>/postgres
#   GPUCOST_REQUIRE_POSTGRES=1   (the PostgreSQL tests fail instead of skipping without it)
set -euo pipefail
if ! command -v pg_virtualenv >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql postgresql-contrib >/dev/null
fi
exec pg_virtualenv -t sh -c '
  export GPUCOST_TEST_POSTGRES_URL="postgresql+psycopg://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$PGDATABASE"
  export GPUCOST_REQUIRE_POSTGRES=1
  psql -Atc "select '"'"'PostgreSQL '"'"' || current_setting('"'"'server_version'"'"') || '"'"' on port '"'"' || current_setting('"'"'port'"'"')"
  exec "$@"' sh "$@"
