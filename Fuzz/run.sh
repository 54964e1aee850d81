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
mkdir -p "$out/mqastore" "$out/artifacts"
root=$(pwd)
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -I "$root/Sources/CSQLite" -I "$root/Sources/CZstd" -I "$root/Sources/CCrypto" -I "$root/Sources/CZlib")
store_sources=("$root"/Sources/MQAStore/*.swift)

# Rebuild only when a source is newer than the targets.
if [ "$build_only" = 0 ] && [ -x "$out/line-fuzz" ] && [ -x "$out/chunk-fuzz" ] \
    && [ -x "$out/rtcstats-fuzz" ] && [ -x "$out/internals-fuzz" ] \
    && [ -z "$(find Sources/MQAStore Sources/MQADomain Fuzz -name '*.swift' -newer "$out/rtcstats-fuzz")" ] \
    && [ -z "$(find Sources/MQAStore Sources/MQADomain Fuzz -name '*.swift' -newer "$out/line-fuzz")" ] \
    && [ -z "$(find Sources/MQAStore Fuzz -name '*.swift' -newer "$out/chunk-fuzz")" ]; then
    echo "== fuzz targets are up to date" >&2
else
echo "== building the fuzz targets" >&2
# chunk: the MQAStore sources and the target in one module (internal API reachable).
swiftc "${flags[@]}" -module-name ChunkFuzz "${store_sources[@]}" Fuzz/ChunkFuzz/main.swift \
    -lsqlite3 -lzstd -lcrypto -lz -o "$out/chunk-fuzz" 2> "$out/build-chunk.log" || { cat "$out/build-chunk.log" >&2; exit 1; }
# line: MQAStore as a module, then the parsing and model sources of MQADomain with the target.
(cd "$out/mqastore" && swiftc "${flags[@]}" \
    -module-name MQAStore -emit-module -emit-module-path MQAStore.swiftmodule -wmo -c "${store_sources[@]}") \
    2> "$out/build-store.log" \
    || { cat "$out/build-store.log" >&2; exit 1; }
domain=(
    Sources/MQADomain/Parsing/JSONScanner.swift Sources/MQADomain/Parsing/LineParser.swift
    Sources/MQADomain/Parsing/NumberText.swift Sources/MQADomain/Parsing/RFC3339.swift
    Sources/MQADomain/Model/Event.swift Sources/MQADomain/Model/EventDescriptor.swift
    Sources/MQADomain/Model/CanonicalJSON.swift Sources/MQADomain/Support/JSON.swift
    Sources/MQADomain/Support/Time.swift
)
swiftc "${flags[@]}" -I "$out/mqastore" -module-name LineFuzz "${domain[@]}" Fuzz/LineFuzz/main.swift \
    "$out"/mqastore/*.o -lsqlite3 -lzstd -lcrypto -lz -o "$out/line-fuzz" 2> "$out/build-line.log" \
    || { cat "$out/build-line.log" >&2; exit 1; }
# rtcstats / internals: the same parsing sources plus the importers (no store).
importers=(Sources/MQADomain/Ingest/LineReader.swift Sources/MQADomain/Import/LineReader+Dump.swift
    Sources/MQADomain/Parsing/JSONScanner+Walk.swift Sources/MQADomain/Import/StatsReport.swift
    Sources/MQADomain/Import/ConnectionConverter.swift Sources/MQADomain/Import/RTCStatsImporter.swift
    Sources/MQADomain/Import/WebRTCInternalsImporter.swift Sources/MQADomain/Import/WebRTCImport.swift)
for t in rtcstats:RTCStatsFuzz internals:InternalsFuzz; do
    swiftc "${flags[@]}" -I "$out/mqastore" -module-name "${t#*:}" "${domain[@]}" "${importers[@]}" \
        Fuzz/ImportFuzzSupport.swift "Fuzz/${t#*:}/main.swift" \
        "$out"/mqastore/*.o -lsqlite3 -lzstd -lcrypto -lz -o "$out/${t%%:*}-fuzz" 2> "$out/build-${t%%:*}.log" \
        || { cat "$out/build-${t%%:*}.log" >&2; exit 1; }
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
