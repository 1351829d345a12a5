#!/usr/bin/env bash
# Installs the load balancer the cluster tests put in front of several
# replicas: Debian's nginx at /usr/sbin/nginx (the tests start it themselves,
# in the foreground, with a generated configuration; the package's own
# service is kept from starting). Idempotent: does nothing when
# /usr/sbin/nginx exists. Needs root (or sudo) when it has to install.
# Called by .ci/run and, when nginx is missing, by the test that needs it.
set -euo pipefail

if [ -x /usr/sbin/nginx ]; then
  echo "nginx: $(/usr/sbin/nginx -v 2>&1) at /usr/sbin/nginx"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-nginx.sh: /usr/sbin/nginx is missing and this user cannot install packages." >&2
  echo "Run as root: apt-get update && apt-get install -y nginx-light (or nginx)" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-nginx.sh: no apt-get here. Install nginx so that /usr/sbin/nginx exists, then run the tests again." >&2
  exit 1
fi

# Keep the package from starting its own nginx on port 80 (policy-rc.d 101: "action forbidden").
POLICY=/usr/sbin/policy-rc.d
ADDED_POLICY=""
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod +x "$POLICY"
  ADDED_POLICY=1
fi
trap '[ -n "$ADDED_POLICY" ] && $SUDO rm -f "$POLICY"' EXIT

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends nginx
echo "nginx: $(/usr/sbin/nginx -v 2>&1) at /usr/sbin/nginx"
