#!/usr/bin/env bash
# Wall time of the Spark fleet job against one box, on a simulated fleet:
#   bash Benchmarks/spark.sh [--meetings N] [--shards "1 2 3"]
# One box = mqa ingest + report fleet (json) + report meeting --all (html)
# + tune (json), release build. Spark = Scripts/spark-fleet.sh with the same
# outputs (plus parquet); its per-shard stage times are in OUT/timings.json.
# Both use the 2 cores (local[2]; mqa's threads), so the per-core
# ratio is one box's wall over Spark's, once the fixed start-up (a
# one-meeting job) is taken off Spark's.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MEETINGS=24
SHARDS="1 2 3"
while [ $# -gt 0 ]; do
    case "$1" in
        --meetings) MEETINGS="$2"; shift 2 ;;
        --shards) SHARDS="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
cd "$ROOT"
swift build -c release --product mqa >&2
export MQA_BIN="$ROOT/.build/release/mqa"
OUT="$ROOT/Benchmarks/out/spark-$MEETINGS"
rm -rf "$OUT"; mkdir -p "$OUT"
"$MQA_BIN" simulate --meetings "$MEETINGS" --out "$OUT/logs" >&2
echo '{"hysteresis": [0, 0.1, 0.2], "upDwell": [1, 2], "downDwell": [1, 2]}' > "$OUT/grid.json"
du -sh "$OUT/logs" >&2
t0=$(date +%s.%N)
python3 -c 'import os,sys
fs=[]
for d,ds,f in os.walk(sys.argv[1]): fs+=[os.path.join(d,x) for x in f]
print("\n".join(sorted(fs, key=lambda p: "file:"+p)))' "$OUT/logs" | xargs -d '\n' "$MQA_BIN" ingest --db "$OUT/one.sqlite" --format json > "$OUT/one-ingest.json" || [ $? = 3 ] || [ $? = 123 ]
t1=$(date +%s.%N)
"$MQA_BIN" report fleet --db "$OUT/one.sqlite" --format json > "$OUT/one-fleet.json"
"$MQA_BIN" report meeting --all --db "$OUT/one.sqlite" --format html --out "$OUT/one-html" 2>/dev/null
t2=$(date +%s.%N)
"$MQA_BIN" tune --db "$OUT/one.sqlite" --grid "$OUT/grid.json" --format json > "$OUT/one-tune.json" 2>/dev/null
t3=$(date +%s.%N)
printf 'one box: %.1f s (ingest %.1f, reports %.1f, tune %.1f)\n' \
    "$(echo "$t3 - $t0" | bc)" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(echo "$t3 - $t2" | bc)"
one_box=$(echo "$t3 - $t0" | bc)
# Spark's fixed cost: a job over one meeting (JVM and Python start, the
# shard's mqa commands on almost nothing, the merge).
"$MQA_BIN" simulate --meetings 1 --out "$OUT/tiny-logs" >/dev/null 2>&1
e0=$(date +%s.%N)
bash Scripts/spark-fleet.sh --logs "$OUT/tiny-logs" --out "$OUT/spark-tiny" --shards 1 --grid "$OUT/grid.json" > "$OUT/spark-tiny.log" 2>&1
e1=$(date +%s.%N)
startup=$(echo "$e1 - $e0" | bc)
printf 'spark start-up (a one-meeting job, 1 shard): %.1f s\n' "$startup"
for n in $SHARDS; do
    s0=$(date +%s.%N)
    bash Scripts/spark-fleet.sh --logs "$OUT/logs" --out "$OUT/spark-$n" --shards "$n" --grid "$OUT/grid.json" > "$OUT/spark-$n.log" 2>&1
    s1=$(date +%s.%N)
    same="fleet.json $(cmp -s "$OUT/one-fleet.json" "$OUT/spark-$n/fleet.json" && echo equal || echo DIFFERENT)"
    same="$same, tune.json $(cmp -s "$OUT/one-tune.json" "$OUT/spark-$n/tune.json" && echo equal || echo DIFFERENT)"
    printf 'spark %d shard(s): %.1f s wall (%s); per-core throughput vs one box, start-up excluded: %.2f\n' \
        "$n" "$(echo "$s1 - $s0" | bc)" "$same" "$(echo "$one_box / ($s1 - $s0 - $startup)" | bc -l)"
    grep -h "mqa-spark:" "$OUT/spark-$n.log" | sed 's/^/    /'
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))
for s in t["shards"]: print("    shard", s["shard"], {k: v for k, v in s.items() if k not in ("shard",)})' "$OUT/spark-$n/timings.json"
done
