#!/usr/bin/env bash
# Install wrk (the HTTP load generator used by `make bench` and the load tests) from apt
# when it is missing.
set -euo pipefail
command -v wrk >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
