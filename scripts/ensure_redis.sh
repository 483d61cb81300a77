#!/usr/bin/env bash
# Install redis-server (Debian's package) when it is missing: the system tests start a
# throwaway one to check that rate limits held in Redis are shared by two workers.
set -euo pipefail
command -v redis-server >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
# The package may start a system service; the tests start their own on a free port.
$SUDO service redis-server stop >/dev/null 2>&1 || true
