#!/usr/bin/env bash
# Builds the libFuzzer targets and runs them, one after the other.
#
#   Fuzz/run.sh                 build, then run each target for 600 s
#   Fuzz/run.sh 60              ... for 60 s each
#   Fuzz/run.sh 600 line        only the line target (line | chunk | rtcstats | internals)
#   Fuzz/run.sh build           only build
#
# Targets (swiftc -sanitize=fuzzer,address, straight from the sources; no
# package is fetched):
#   line   LineParser/JSONScanner on one line; round trips of the canonical
#          payload JSON and of the exported line
#   chunk  ChunkCodec.decode / decodeEvents on damaged blobs; encode/decode
#          round trips
#   rtcstats   the rtcstats dump importer on one dump, read as a file by
#              LineReader.readAll (plain, gzip or zstd, with small
#              DumpLimits so that inputs reach them); the content held
#              keeps within the limits, every produced line passes the
#              ingest validator, counts match
#   internals  the same for the webrtc-internals importer
#
# Seeds are in Fuzz/corpus/<target>/ (committed); the growing corpus goes to
# .build/fuzz/corpus/<target>/, crash inputs to .build/fuzz/artifacts/.
# Every crash found becomes a regression test (Tests/*/FuzzRegressionTests).
# Exit status: 0 when no target crashed, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
only=""
build_only=0
for arg in "$@"; do
    case "$arg" in
        build) build_only=1 ;;
        line|chunk|rtcstats|internals) only="$arg" ;;
        ''|*[!0-9]*) echo "usage: Fuzz/run.sh [SECONDS] [line|chunk|rtcstats|internals] | build" >&2; exit 64 ;;
        *) seconds="$arg" ;;
    esac
done

out=.build/fuzz
mkdir -p "$out/artifacts"
root=$(pwd)
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -I "$root/Sources/CSQLite" -I "$root/Sources/CZstd" -I "$root/Sources/CCrypto" -I "$root/Sources/CZlib")
libs=(-lsqlite3 -lzstd -lcrypto -lz)

# Each target is one module of the package's sources it needs (the
# package's own imports of its modules dropped), so every line is
# instrumented and `package`/internal API is reachable.
base=(Sources/MQABase/*.swift)
model=(Sources/MQAModel/*.swift Sources/MQAModel/Parsing/*.swift)
codec=(Sources/MQAStore/Codec/*.swift)
importers=(Sources/MQAIngest/Import/*.swift Sources/MQAIngest/Ingest/LineReader.swift Sources/MQAStore/Tables/IngestSummary.swift)

# fuzz_build NAME OUTPUT SOURCES...: stages SOURCES without `import MQA*` and compiles them.
fuzz_build() {
    local name=$1 output=$2
    shift 2
    local stage="$out/src-$name"
    rm -rf "$stage"
    mkdir -p "$stage"
    local k=0 f
    for f in "$@"; do
        k=$((k + 1))
        sed -E '/^(@testable )?import MQA[A-Za-z]+$/d' "$f" > "$stage/$k-$(basename "$f")"
    done
    swiftc "${flags[@]}" -package-name mqa -module-name "$name" "$stage"/*.swift "${libs[@]}" -o "$output" 2> "$out/build-$name.log" \
        || { cat "$out/build-$name.log" >&2; exit 1; }
}

# Rebuild only when a source is newer than the targets.
newest() { find Sources/MQABase Sources/MQAModel Sources/MQAStore Sources/MQAIngest Fuzz -name '*.swift' -newer "$1"; }
if [ "$build_only" = 0 ] && [ -x "$out/line-fuzz" ] && [ -x "$out/chunk-fuzz" ] \
    && [ -x "$out/rtcstats-fuzz" ] && [ -x "$out/internals-fuzz" ] \
    && [ -z "$(newest "$out/rtcstats-fuzz")" ] && [ -z "$(newest "$out/line-fuzz")" ] && [ -z "$(newest "$out/chunk-fuzz")" ]; then
    echo "== fuzz targets are up to date" >&2
else
echo "== building the fuzz targets" >&2
fuzz_build ChunkFuzz "$out/chunk-fuzz" "${base[@]}" "${model[@]}" "${codec[@]}" Fuzz/ChunkFuzz/main.swift
fuzz_build LineFuzz "$out/line-fuzz" "${base[@]}" "${model[@]}" Fuzz/LineFuzz/main.swift
for t in rtcstats:RTCStatsFuzz internals:InternalsFuzz; do
    fuzz_build "${t#*:}" "$out/${t%%:*}-fuzz" "${base[@]}" "${model[@]}" "${importers[@]}" \
        Fuzz/ImportFuzzSupport.swift "Fuzz/${t#*:}/main.swift"
done
fi
[ "$build_only" = 1 ] && { echo "built $out/line-fuzz, chunk-fuzz, rtcstats-fuzz and internals-fuzz" >&2; exit 0; }

status=0
for target in line chunk rtcstats internals; do
    [ -n "$only" ] && [ "$only" != "$target" ] && continue
    corpus="$out/corpus/$target"
    mkdir -p "$corpus"
    cp -n Fuzz/corpus/$target/* "$corpus/" 2>/dev/null || true
    log="$out/$target.log"
    echo "== fuzzing $target for ${seconds}s (log: $log)" >&2
    set +e
    ASAN_OPTIONS=detect_leaks=0 "$out/$target-fuzz" "$corpus" Fuzz/corpus/$target \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$out/artifacts/$target-" > "$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    crashes=$(ls "$out"/artifacts/"$target"-* 2>/dev/null | wc -l || true)
    echo "$target: ${execs:-?} executions in ${seconds}s, exit $rc, crash artifacts: $crashes" | tee -a "$out/summary.txt"
    [ "$rc" = 0 ] || status=1
done
exit $status
