#!/usr/bin/env bash
# Re-records Reports/ (the example reports of the demo's fixed seed) after an
# intended change to a report; review the diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
MQA_RECORD=1 swift test --skip-build --filter ExampleReportsTests
git status --short Reports/
