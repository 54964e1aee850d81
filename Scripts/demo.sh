#!/usr/bin/env bash
# The main job on built-in demo data: build mqa, then simulate a fleet,
# ingest it and write every report into ./demo (or the folder given).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/deps.sh
swift build -c release --product mqa
.build/release/mqa demo --out "${1:-demo}"
