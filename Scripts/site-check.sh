#!/usr/bin/env bash
# Checks a report site in a real browser (Scripts/site-check.py: headless
# Chromium over the DevTools protocol): console errors, sideways overflow,
# and what the first screen of a meeting page shows, at 1400×900 and 400×900.
#
#   bash Scripts/site-check.sh SITE_DIR [--out RESULT.json] [--screenshots DIR] …
#
# Installs Debian's `chromium` when it is missing (apt-get, through
# `sudo -n` when not root). When it cannot, it prints why and exits 77
# (skipped), so that a test can tell "not checked" from "failed".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
browser="${CHROMIUM:-chromium}"

skip() { echo "site-check: skipped: $*" >&2; exit 77; }

command -v python3 >/dev/null 2>&1 || skip "no python3 to drive the browser"
if ! command -v "$browser" >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || skip "no $browser and no apt-get to install it"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo -n true 2>/dev/null || skip "no $browser, and installing it needs root (no password-less sudo)"
        SUDO="sudo -n"
    fi
    echo "site-check: installing chromium" >&2
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; } \
        || skip "apt-get install chromium failed"
    browser=chromium
    command -v chromium >/dev/null 2>&1 || skip "chromium installed but not on PATH"
fi
exec python3 "$here/site-check.py" --chromium "$browser" "$@"
