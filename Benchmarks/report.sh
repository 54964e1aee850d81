#!/usr/bin/env bash
# Report benchmark: one meeting's report from a store of N meetings, at two
# store sizes, to show its cost follows the meeting and not the store
# (every read is an index lookup by client); then batch HTML for every
# meeting of the larger store.
#
# Usage: Benchmarks/report.sh [SMALL] [LARGE]   (meetings; default 100 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-100}
large=${2:-1000}
bash Scripts/deps.sh
swift build -c release --product mqa >&2
mqa=.build/release/mqa
out=Benchmarks/out/report
mkdir -p "$out"
for n in "$small" "$large"; do
    if [ ! -f "$out/$n.sqlite" ]; then
        rm -rf "$out/logs-$n"
        "$mqa" simulate --meetings "$n" --seed 3 --out "$out/logs-$n" 2>/dev/null
        find "$out/logs-$n" -name '*.ndjson' -print0 | sort -z | xargs -0 "$mqa" ingest --db "$out/$n.sqlite" >/dev/null || true
    fi
done
# The same meeting exists in both stores: meeting i of a seed does not
# depend on how many meetings are generated.
meeting=$(sqlite3 "$out/$small.sqlite" "SELECT m.meeting FROM meeting_summary s JOIN meetings m ON m.id = s.meeting_id WHERE s.engine = 'sfu' ORDER BY s.warm_reports DESC LIMIT 1")
reports=$(sqlite3 "$out/$small.sqlite" "SELECT warm_reports FROM meeting_summary s JOIN meetings m ON m.id = s.meeting_id WHERE m.meeting = '$meeting'")
echo "meeting $meeting ($reports warm reports), report as html, best of 10 runs:"
for n in "$small" "$large"; do
    best=999
    for _ in $(seq 10); do
        s=$(date +%s%N)
        "$mqa" report meeting "$meeting" --db "$out/$n.sqlite" --format html --out "$out/one.html"
        e=$(date +%s%N)
        t=$(( (e - s) / 1000000 ))
        (( t < best )) && best=$t
    done
    size=$(du -m "$out/$n.sqlite" | cut -f1)
    echo "  store of $n meetings ($size MB): $best ms"
done
rm -rf "$out/batch"
s=$(date +%s%N)
"$mqa" report meeting --all --format html --out "$out/batch" --db "$out/$large.sqlite" >/dev/null
e=$(date +%s%N)
echo "batch html for $large meetings: $(( (e - s) / 1000000 )) ms ($(ls "$out/batch" | wc -l) files)"
