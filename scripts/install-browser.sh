#!/usr/bin/env bash
# Installs the headless browser the web-page test drives: Debian's Chromium
# at /usr/bin/chromium (playwright-core launches it; no browser download),
# with a text font and a colour emoji font (without one, emoji in agent
# names and messages show as boxes). Idempotent: installs only what is
# missing, so a machine that had Chromium before gets the emoji font too.
# Needs root (or sudo) when it has to install. Called by .ci/run before the
# tests.
set -euo pipefail
here=$(dirname "$0")
bash "$here/apt-install.sh" chromium /usr/bin/chromium chromium fonts-liberation fonts-noto-color-emoji
bash "$here/apt-install.sh" "emoji font" /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf fonts-noto-color-emoji
if ! fc-list ':family=Noto Color Emoji' family | grep -q .; then
  echo "emoji font: installed, but fontconfig does not list Noto Color Emoji (fc-list); run fc-cache -f" >&2
  exit 1
fi
