#!/usr/bin/env bash
# Installs the headless browser the web-page test drives: Debian's Chromium
# at /usr/bin/chromium (playwright-core launches it; no browser download).
# Idempotent: does nothing when /usr/bin/chromium exists. Needs root (or sudo)
# when it has to install. Called by .ci/run before the tests.
exec bash "$(dirname "$0")/apt-install.sh" chromium /usr/bin/chromium chromium fonts-liberation
