#!/usr/bin/env bash
# Ingest benchmark: mqa against the naive baseline a user would write
# (Benchmarks/baseline_ingest.py: Python json + sqlite3, one row per report,
# index on (meeting, uid, ts)), side by side on the same files in one run,
# so the ratios hold on a noisy shared machine.
#
# Usage: Benchmarks/ingest.sh [--meetings N] [--logs DIR]
#   --meetings N  size of the simulated corpus (default 265: ~1.01M reports)
#   --logs DIR    use these .ndjson files instead of simulating
set -euo pipefail
cd "$(dirname "$0")/.."
meetings=265
logs=""
while (($#)); do
    case "$1" in
        --meetings) meetings="$2"; shift 2 ;;
        --logs) logs="$2"; shift 2 ;;
        *) echo "usage: $0 [--meetings N] [--logs DIR]" >&2; exit 64 ;;
    esac
done
bash Scripts/deps.sh
swift build -c release --product mqa >&2
mqa=.build/release/mqa
out=Benchmarks/out
rm -rf "$out/mqa.sqlite"* "$out/baseline.sqlite"* "$out/all.zst"
mkdir -p "$out"
if [ -z "$logs" ]; then
    logs="$out/logs"
    rm -rf "$logs"
    echo "simulating $meetings meetings…" >&2
    "$mqa" simulate --meetings "$meetings" --seed 7 --out "$logs" >&2
fi
mapfile -t files < <(find "$logs" -type f -name '*.ndjson' | sort)
input_bytes=$(cat "${files[@]}" | wc -c)
reports=$(cat "${files[@]}" | grep -c '"quality_report"' || true)
lines=$(cat "${files[@]}" | grep -c . || true)
echo "compressing the input with zstd -19 (what users keep otherwise)…" >&2
cat "${files[@]}" | zstd -19 -T2 -q -c > "$out/all.zst"
zstd_bytes=$(wc -c < "$out/all.zst")

run() {  # run NAME CMD...: prints "seconds maxrss_kb"
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" > "$out/$name.log" 2>&1 || [ $? -eq 3 ]
    cat "$out/$name.time"
}
echo "ingesting with mqa…" >&2
read -r mqa_s mqa_kb < <(run mqa "$mqa" ingest --db "$out/mqa.sqlite" "${files[@]}")
echo "ingesting with the baseline…" >&2
read -r base_s base_kb < <(run baseline python3 Benchmarks/baseline_ingest.py "$out/baseline.sqlite" "${files[@]}")
# Sizes after a checkpoint, so the WAL is in the main file.
sqlite3 "$out/mqa.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
mqa_bytes=$(wc -c < "$out/mqa.sqlite")
base_bytes=$(wc -c < "$out/baseline.sqlite")

python3 - "$lines" "$reports" "$input_bytes" "$zstd_bytes" "$mqa_s" "$mqa_kb" "$mqa_bytes" "$base_s" "$base_kb" "$base_bytes" <<'PY'
import sys
lines, reports, inb, zb = map(int, sys.argv[1:5])
ms, mkb, mb = float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
bs, bkb, bb = float(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
print(f"corpus: {lines:,} lines, {reports:,} quality reports, {inb/1e6:.1f} MB; zstd -19: {zb/1e6:.2f} MB")
print(f"{'':12}{'seconds':>9}{'reports/s':>12}{'MB/s':>8}{'store MB':>10}{'B/sample':>10}{'vs zstd-19':>11}{'peak RSS':>10}")
for name, s, kb, b in (("mqa", ms, mkb, mb), ("baseline", bs, bkb, bb)):
    print(f"{name:12}{s:9.2f}{reports/s:12,.0f}{inb/1e6/s:8.1f}{b/1e6:10.2f}{b/(reports*5):10.2f}{b/zb:10.2f}x{kb/1024:8.0f} MB")
print(f"speed: mqa is {bs/ms:.1f}x the baseline; store: {bb/mb:.1f}x smaller than the baseline's, {mb/zb:.2f}x of zstd -19")
PY
