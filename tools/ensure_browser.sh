#!/usr/bin/env bash
# Installs Debian's headless Chromium (and a CJK font, so Chinese terms render in screenshots)
# for the browser tests, if it is not there yet.
# Playwright drives this system binary; it never downloads a browser of its own.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "installing Debian's chromium for the browser tests (needs apt and root)..."
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core fonts-wqy-zenhei >/dev/null
command -v chromium
