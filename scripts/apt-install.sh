#!/usr/bin/env bash
# Installs Debian packages a test needs, once:
#   bash scripts/apt-install.sh <name> <path> <package>...
# does nothing when <path> exists (a program, or a file such as a font);
# otherwise installs the packages with apt-get (as root, or through sudo)
# without starting any service they bring (policy-rc.d), and checks that
# <path> then exists. Says what to run by hand when this user or machine
# cannot install.
set -euo pipefail
name=$1 path=$2
shift 2

if [ -e "$path" ]; then
  echo "$name: present at $path"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "$name: $path is missing and this user cannot install packages." >&2
  echo "Run as root: apt-get update && apt-get install -y $*" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "$name: no apt-get here. Install $name so that $path exists, then run the tests again." >&2
  exit 1
fi

# Keep the packages from starting services of their own (policy-rc.d 101: "action forbidden").
POLICY=/usr/sbin/policy-rc.d
ADDED_POLICY=""
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod +x "$POLICY"
  ADDED_POLICY=1
fi
trap '[ -z "$ADDED_POLICY" ] || $SUDO rm -f "$POLICY"' EXIT

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "$@"
[ -e "$path" ] || { echo "$name: installed $*, but $path is still missing" >&2; exit 1; }
echo "$name: installed at $path"
