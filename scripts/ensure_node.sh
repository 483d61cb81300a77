#!/usr/bin/env bash
# Install Node.js and npm from apt when missing (the TypeScript client check needs them).
# Where apt offers NodeSource's nodejs, npm comes with it; Debian's own nodejs needs the npm
# package too.
set -euo pipefail
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
command -v node >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs >/dev/null
command -v npm >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
node --version
