#!/usr/bin/env bash
# The test command: dependencies, a debug build (the CLI tests run the built
# binary), then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/deps.sh
swift build --build-tests
swift test --skip-build "$@"
