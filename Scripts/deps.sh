#!/usr/bin/env bash
# Installs the Debian packages mqa builds and tests with, when missing:
# the SQLite, zstd, zlib and OpenSSL (libcrypto, for SHA-256) C libraries (headers + libs) and the zstd CLI (tests
# compress fixtures with it). Safe to run again: installs nothing when all
# are there.
set -euo pipefail
need=()
for pkg in libsqlite3-dev libzstd-dev zlib1g-dev libssl-dev zstd pkg-config; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
    echo "installing: ${need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
