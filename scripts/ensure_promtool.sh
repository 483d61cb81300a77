#!/usr/bin/env bash
# Put promtool (from Debian's prometheus package, unpacked: no service is installed or
# started) at .venv/bin/promtool when none is on PATH: the monitoring tests check the alert
# rules (`promtool check rules`, `promtool test rules`) and the dashboard's queries with it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v promtool >/dev/null 2>&1 && exit 0
[ -x .venv/bin/promtool ] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
(cd "$work" && apt-get download prometheus >/dev/null 2>&1) || {
  $SUDO apt-get update -qq
  (cd "$work" && apt-get download prometheus >/dev/null 2>&1)
}
dpkg -x "$work"/prometheus_*.deb "$work/root"
install -m 0755 "$work/root/usr/bin/promtool" .venv/bin/promtool
.venv/bin/promtool --version | head -1
