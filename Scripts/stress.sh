#!/usr/bin/env bash
# The long reliability runs that CI keeps short:
#   - crash safety: 60 SIGKILLs at random moments over one store
#     (CI: 6), then completion, integrity_check and export == clean run;
#   - 2,000,000 distinct meeting ids in one log (CI: 20,000);
#   - the fuzz targets, 10 minutes each (Fuzz/run.sh).
# Usage: Scripts/stress.sh [FUZZ_SECONDS]   (0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
MQA_STRESS=1 swift test --skip-build --filter 'CrashSafetyTests|HostileInputTests/manyDistinctMeetingIDs'
seconds="${1:-600}"
if [ "$seconds" != 0 ]; then Fuzz/run.sh "$seconds"; fi
