#!/usr/bin/env bash
# Install kubectl (Debian's kubernetes-client) when it is missing: the deployment tests
# render deploy/kustomize with `kubectl kustomize` (no helm binary is installable here) and
# validate what it renders with kubernetes-validate.
set -euo pipefail
command -v kubectl >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq kubernetes-client >/dev/null
