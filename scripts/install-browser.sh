#!/usr/bin/env bash
# Installs the headless browser the web-page test drives: Debian's Chromium
# at /usr/bin/chromium (playwright-core launches it; no browser download).
# Idempotent: does nothing when /usr/bin/chromium exists. Needs root (or sudo)
# when it has to install. Called by .ci/run before the tests.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present) at /usr/bin/chromium"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-browser.sh: /usr/bin/chromium is missing and this user cannot install packages." >&2
  echo "Run as root: apt-get update && apt-get install -y chromium" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser.sh: no apt-get here. Install Chromium so that /usr/bin/chromium exists, then run the tests again." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-liberation
echo "chromium: $(/usr/bin/chromium --version) at /usr/bin/chromium"
