#!/usr/bin/env bash
# Install Debian's chromium (headless browser for the HTML report test) from apt when it is
# missing.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
