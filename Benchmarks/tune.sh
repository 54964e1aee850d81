#!/usr/bin/env bash
# Tuning sweep benchmark: `mqa tune` with a 48-config grid over the store
# that Benchmarks/ingest.sh leaves (>= 1M quality reports). Prints report x
# config steps per second (the sweep alone, loading excluded) for 1 and 2
# cores side by side, and the whole command's wall time.
#
# Usage: Benchmarks/tune.sh [--db PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
db=Benchmarks/out/mqa.sqlite
[ "${1:-}" = "--db" ] && db="$2"
[ -f "$db" ] || { echo "no store at $db: run Benchmarks/ingest.sh first" >&2; exit 1; }
swift build -c release --product mqa >&2
grid=Benchmarks/out/grid48.json
cat > "$grid" <<'JSON'
{"thresholds": [[4.0, 3.6, 3.1, 2.6], [4.2, 3.8, 3.3, 2.8], [3.8, 3.4, 2.9, 2.4]],
 "hysteresis": [0, 0.05, 0.1, 0.2], "downDwell": [1, 2], "upDwell": [1, 2]}
JSON
for cores in 2 1; do
    start=$(date +%s.%N)
    MQA_THREADS=$cores .build/release/mqa tune --db "$db" --grid "$grid" --format json --out Benchmarks/out/tune.json 2> Benchmarks/out/tune.err
    end=$(date +%s.%N)
    echo "$cores core(s): $(grep '^tune:' Benchmarks/out/tune.err); whole command $(python3 -c "print(f'{$end-$start:.2f}')") s"
done
