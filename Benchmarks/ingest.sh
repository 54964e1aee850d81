#!/usr/bin/env bash
# Ingest benchmark: mqa against two baselines a user would write, side by
# side on the same files in one run, so the ratios hold on a noisy shared
# machine:
#   lean      Benchmarks/baseline_lean.py: json + sqlite3, quality reports
#             only, one table with an index on (meeting, uid, ts),
#             executemany in batches of 100,000, one commit (the bar)
#   baseline  Benchmarks/baseline_ingest.py: the same plus every other
#             event as JSON text with a second index, WAL
# Also printed: the store against zstd -19 of its input, page slack (dbstat)
# and peak RSS.
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
rm -rf "$out/mqa.sqlite"* "$out/baseline.sqlite"* "$out/lean.sqlite"* "$out/all.zst"
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
echo "ingesting with the lean baseline…" >&2
read -r lean_s lean_kb < <(run lean python3 Benchmarks/baseline_lean.py "$out/lean.sqlite" "${files[@]}")
echo "ingesting with the baseline…" >&2
read -r base_s base_kb < <(run baseline python3 Benchmarks/baseline_ingest.py "$out/baseline.sqlite" "${files[@]}")
# Sizes after a checkpoint, so the WAL is in the main file.
sqlite3 "$out/mqa.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
mqa_bytes=$(wc -c < "$out/mqa.sqlite")
base_bytes=$(wc -c < "$out/baseline.sqlite")
lean_bytes=$(wc -c < "$out/lean.sqlite")
# Page slack: bytes of pages that hold no payload (dbstat, when compiled in).
slack=$(sqlite3 "$out/mqa.sqlite" "SELECT printf('%.1f', 100.0 * sum(unused) / sum(pgsize)) FROM dbstat" 2>/dev/null || echo "?")

python3 - "$lines" "$reports" "$input_bytes" "$zstd_bytes" "$mqa_s" "$mqa_kb" "$mqa_bytes" "$base_s" "$base_kb" "$base_bytes" \
    "$lean_s" "$lean_kb" "$lean_bytes" "$slack" <<'PY'
import sys
lines, reports, inb, zb = map(int, sys.argv[1:5])
ms, mkb, mb = float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
bs, bkb, bb = float(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
ls, lkb, lb = float(sys.argv[11]), int(sys.argv[12]), int(sys.argv[13])
slack = sys.argv[14]
print(f"corpus: {lines:,} lines, {reports:,} quality reports, {inb/1e6:.1f} MB; zstd -19: {zb/1e6:.2f} MB")
print(f"{'':12}{'seconds':>9}{'reports/s':>12}{'MB/s':>8}{'store MB':>10}{'B/sample':>10}{'vs zstd-19':>11}{'peak RSS':>10}")
for name, s, kb, b in (("mqa", ms, mkb, mb), ("lean", ls, lkb, lb), ("baseline", bs, bkb, bb)):
    print(f"{name:12}{s:9.2f}{reports/s:12,.0f}{inb/1e6/s:8.1f}{b/1e6:10.2f}{b/(reports*5):10.2f}{b/zb:10.2f}x{kb/1024:8.0f} MB")
print(f"speed: mqa is {ls/ms:.1f}x the lean baseline (the bar), {bs/ms:.1f}x the full baseline")
print(f"store: {mb/zb:.2f}x of zstd -19 of the input; {bb/mb:.1f}x smaller than the full baseline's; page slack {slack} %; peak RSS {mkb/1024:.0f} MB")
PY
