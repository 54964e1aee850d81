#!/usr/bin/env bash
# Big-meeting benchmark: wall time and peak memory of every command that
# reads one meeting, on a single large webinar (Benchmarks/gen_webinar.py:
# VIEWERS viewers of one host camera for MINUTES minutes, every viewer
# sharing its freezes). A meeting report holds the meeting; everything
# else should stay near flat.
#
# Usage: Benchmarks/big-meeting.sh [VIEWERS] [MINUTES] [--also BIN]
#   (default 2000 viewers, 60 minutes: 3.6M quality reports, 509 MB)
#   --also BIN   run another mqa binary (an older build) beside this one
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=2000
minutes=60
also=""
positional=()
while (($#)); do
    case "$1" in
        --also) also="$(realpath "$2")"; shift 2 ;;
        *) positional+=("$1"); shift ;;
    esac
done
viewers=${positional[0]:-$viewers}
minutes=${positional[1]:-$minutes}
bash Scripts/deps.sh
swift build -c release --product mqa >&2
mqa=$(realpath .build/release/mqa)
out=Benchmarks/out/webinar-$viewers-$minutes
if [ ! -f "$out/.done" ]; then
    rm -rf "$out"
    echo "writing the webinar's logs ($viewers viewers, $minutes min)…" >&2
    python3 Benchmarks/gen_webinar.py "$out/logs" "$viewers" "$minutes"
    "$mqa" ingest --db "$out/store.sqlite" "$out"/logs/*.ndjson >/dev/null
    touch "$out/.done"
fi
db="$out/store.sqlite"
# Peak RSS of one command, by the kernel's count for that child alone.
measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
with open("/dev/null", "wb") as null:
    rc = subprocess.run(sys.argv[1:], stdout=null, stderr=null).returncode
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{wall:.2f} s {rss:,.0f} MiB" + ("" if rc == 0 else f" (exit {rc})"))
PY
}
echo "| command | this build |${also:+ $also |}"
echo "|---|---:|${also:+---:|}"
while IFS= read -r cmd; do
    # shellcheck disable=SC2086
    row="| \`mqa $cmd\` | $(measure "$mqa" $cmd --db "$db") |"
    # shellcheck disable=SC2086
    [ -n "$also" ] && row+=" $(measure "$also" $cmd --db "$db") |"
    echo "$row"
done <<'CMDS'
report meeting m-webinar
report meeting m-webinar -f json
report meeting m-webinar -f html
report track --meeting m-webinar host-cam
report track --meeting m-webinar host-cam -f json
report track --meeting m-webinar host-cam -f html
tiers --meeting m-webinar
tiers --meeting m-webinar -f json
report fleet
check
export
CMDS
