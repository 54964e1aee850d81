#!/usr/bin/env bash
# Ingest benchmark: mqa against its peers, side by side on the same files,
# runs alternating (every tool once per round), so the ratios hold on a
# noisy shared machine:
#   chDB            ClickHouse in-process: quality reports only, MergeTree
#                   ordered by (meeting, uid, ts), DoubleDelta / Gorilla +
#                   ZSTD codecs (Benchmarks/peers.py chdb)
#   DuckDB Parquet  read_json (every event) → Parquet, zstd
#   DuckDB native   read_json → a table in a DuckDB file
#   lean            Benchmarks/baseline_lean.py: json + sqlite3, quality
#                   reports only, one index, batches of 100,000, one commit
#   baseline        Benchmarks/baseline_ingest.py: the same plus every other
#                   event as JSON text with a second index, WAL
# Each tool's wall time is the comparison; its CPU time (user + system,
# every thread) is printed beside it: on this 2-core machine the engines
# that keep both cores busy show it there.
# The peers run in a virtual environment, ~/.cache/mqa/bench-venv (made on
# the first run: chdb, duckdb and zstandard (for storage.py) from PyPI, the
# versions pinned below).
#
# The corpus is, by default, a simulated fleet rewritten to be as messy as
# uploaded logs (Benchmarks/vary_corpus.py: ~100 KB files, field order per
# client, unknown extra fields, RFC 3339 timestamps, non-ASCII ids, swapped
# neighbours, duplicates). Before timing anything, the script checks that
# the variation is exact: the varied files and a reference copy (one file
# per client, only the ids renamed) give byte-identical `mqa export`s, and
# neither has a rejected line.
#
# Usage: Benchmarks/ingest.sh [--meetings N] [--tidy] [--logs DIR] [--rounds R] [--no-peers] [--also BIN]
#   --meetings N  size of the simulated fleet (default 300)
#   --tidy        the simulated files as they are (one per client), not varied
#   --logs DIR    use these .ndjson files instead of simulating
#   --rounds R    timed runs of each tool (default 3)
#   --no-peers    mqa and the Python baselines only (no venv needed)
#   --also BIN    time another mqa binary too (an older build), in the same rounds
set -euo pipefail
cd "$(dirname "$0")/.."
meetings=300
logs=""
tidy=0
rounds=3
peers=1
also=""
while (($#)); do
    case "$1" in
        --meetings) meetings="$2"; shift 2 ;;
        --logs) logs="$2"; shift 2 ;;
        --tidy) tidy=1; shift ;;
        --rounds) rounds="$2"; shift 2 ;;
        --no-peers) peers=0; shift ;;
        --also) also="$(realpath "$2")"; shift 2 ;;
        *) echo "usage: $0 [--meetings N] [--tidy] [--logs DIR] [--rounds R] [--no-peers] [--also BIN]" >&2; exit 64 ;;
    esac
done
bash Scripts/deps.sh
swift build -c release --product mqa >&2
mqa=.build/release/mqa
out=Benchmarks/out
mkdir -p "$out"
export LC_ALL=C  # file order: a client's pieces sort in order

venv="$HOME/.cache/mqa/bench-venv"
py="$venv/bin/python"
if ((peers)) && ! "$py" -c 'import chdb, duckdb, zstandard' 2>/dev/null; then
    echo "making $venv (chdb, duckdb, zstandard)…" >&2
    python3 -m venv "$venv"
    # zstandard is for Benchmarks/storage.py, run in this venv.
    "$venv/bin/pip" install -q 'chdb==4.4.0' 'duckdb==2.0.1' 'zstandard==0.25.0' >&2
fi

reference=""
if [ -z "$logs" ]; then
    sim="$out/sim-$meetings"
    if [ ! -f "$sim/.done" ]; then
        rm -rf "$sim"
        echo "simulating $meetings meetings…" >&2
        "$mqa" simulate --meetings "$meetings" --seed 7 --out "$sim" >&2
        touch "$sim/.done"
    fi
    logs="$sim"
    if ((!tidy)); then
        varied="$out/varied-$meetings"
        stamp=$(python3 Benchmarks/vary_corpus.py --version)
        if [ "$(cat "$varied/.stamp" 2>/dev/null)" != "$stamp" ]; then
            rm -rf "$varied"
            echo "varying the corpus (Benchmarks/vary_corpus.py)…" >&2
            python3 Benchmarks/vary_corpus.py "$sim" "$varied" >&2
            echo "$stamp" > "$varied/.stamp"
        fi
        logs="$varied/varied"
        reference="$varied/reference"
    fi
fi
mapfile -t files < <(find "$logs" -type f -name '*.ndjson' | sort)
input_bytes=$(cat "${files[@]}" | wc -c)
lines=$(cat "${files[@]}" | grep -c . || true)
# zstd -19 of the input (what users keep otherwise): minutes on 300 MB, so
# kept per input (names, sizes and times of its files).
key=$(stat -c '%n %s %Y' "${files[@]}" | sha256sum | cut -c1-16)
if ! grep -q "^$key " "$out/zstd19" 2>/dev/null; then
    echo "compressing the input with zstd -19…" >&2
    echo "$key $(cat "${files[@]}" | zstd -19 -T2 -q -c | wc -c)" >> "$out/zstd19"
fi
zstd_bytes=$(grep "^$key " "$out/zstd19" | head -1 | cut -d' ' -f2)

# Exactness of the variation: the reference and the varied files give the
# same export, and nothing is rejected.
exact="(not checked: no reference copy)"
if [ -n "$reference" ]; then
    echo "checking the variation is exact (export of reference = export of varied)…" >&2
    rm -rf "$out/ref.sqlite"* "$out/var.sqlite"*
    mapfile -t ref_files < <(find "$reference" -type f -name '*.ndjson' | sort)
    "$mqa" ingest --db "$out/ref.sqlite" --format json "${ref_files[@]}" > "$out/ref-ingest.json"
    "$mqa" ingest --db "$out/var.sqlite" --format json "${files[@]}" > "$out/var-ingest.json"
    "$mqa" export --db "$out/ref.sqlite" --out "$out/ref-export.ndjson"
    "$mqa" export --db "$out/var.sqlite" --out "$out/var-export.ndjson"
    "$mqa" check --db "$out/var.sqlite" > "$out/var-check.txt"
    exact=$(python3 - "$out" <<'PY'
import filecmp, json, sys
out = sys.argv[1]
ref, var = (json.load(open(f"{out}/{n}-ingest.json")) for n in ("ref", "var"))
same = filecmp.cmp(f"{out}/ref-export.ndjson", f"{out}/var-export.ndjson", shallow=False)
ok = same and ref["rejected"] == 0 and var["rejected"] == 0
print(f"{'exact' if ok else 'NOT EXACT'}: exports {'byte-identical' if same else 'differ'}; "
      f"rejected {ref['rejected']} and {var['rejected']}; duplicates {ref['duplicates']} → {var['duplicates']}")
PY
)
    case "$exact" in "NOT EXACT"*) echo "the variation is not exact: $exact" >&2; exit 1 ;; esac
fi

run() {  # run NAME CMD...: prints "wall_seconds maxrss_kb cpu_seconds"
    local name=$1; shift
    # Every tool starts with the input in the page cache. This machine
    # pages out what is not read for a while (DAMON): between two rounds
    # up to 12 % of the corpus was gone, and the next tool read it from
    # the disk (mqa 1.64 s warm against 1.78 s as found, the same build).
    cat "${files[@]}" > /dev/null
    /usr/bin/time -f "%e %M %U %S" -o "$out/$name.time" "$@" > "$out/$name.log" 2>&1 || [ $? -eq 3 ]
    # The last line: before it, time writes "Command exited with non-zero
    # status 3" for an ingest that rejected lines (exit 3, allowed above).
    tail -n 1 "$out/$name.time" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'
}
tools=(mqa lean baseline)
((peers)) && tools=(mqa chdb duckdb-parquet duckdb-native lean baseline)
[ -n "$also" ] && tools=(mqa also "${tools[@]:1}")
: > "$out/times.txt"
for ((r = 1; r <= rounds; r++)); do
    for t in "${tools[@]}"; do
        echo "round $r/$rounds: $t…" >&2
        case "$t" in
            mqa) rm -rf "$out/mqa.sqlite"*
                 read -r s kb cpu < <(run mqa "$mqa" ingest --db "$out/mqa.sqlite" "${files[@]}")
                 sqlite3 "$out/mqa.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
                 bytes=$(wc -c < "$out/mqa.sqlite") ;;
            also) rm -rf "$out/also.sqlite"*
                 read -r s kb cpu < <(run also "$also" ingest --db "$out/also.sqlite" "${files[@]}")
                 sqlite3 "$out/also.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
                 bytes=$(wc -c < "$out/also.sqlite") ;;
            chdb) rm -rf "$out/chdb"
                  read -r s kb cpu < <(run chdb "$py" Benchmarks/peers.py chdb "$out/chdb" "$logs")
                  bytes=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' "$out/chdb.log") ;;
            duckdb-parquet) rm -f "$out/events.parquet"
                  read -r s kb cpu < <(run duckdb-parquet "$py" Benchmarks/peers.py duckdb-parquet "$out/events.parquet" "$logs")
                  bytes=$(wc -c < "$out/events.parquet") ;;
            duckdb-native) rm -f "$out/events.duckdb"*
                  read -r s kb cpu < <(run duckdb-native "$py" Benchmarks/peers.py duckdb-native "$out/events.duckdb" "$logs")
                  bytes=$(cat "$out/events.duckdb"* | wc -c) ;;
            lean) rm -f "$out/lean.sqlite"*
                  read -r s kb cpu < <(run lean python3 Benchmarks/baseline_lean.py "$out/lean.sqlite" "${files[@]}")
                  bytes=$(cat "$out/lean.sqlite"* | wc -c) ;;
            baseline) rm -f "$out/baseline.sqlite"*
                  read -r s kb cpu < <(run baseline python3 Benchmarks/baseline_ingest.py "$out/baseline.sqlite" "${files[@]}")
                  bytes=$(cat "$out/baseline.sqlite"* | wc -c) ;;
        esac
        echo "$r $t $s $kb $bytes $cpu" >> "$out/times.txt"
    done
done
reports=$(grep -o '[0-9]* quality reports' "$out/mqa.log" | head -1 | cut -d' ' -f1)
slack=$(sqlite3 "$out/mqa.sqlite" "SELECT printf('%.1f', 100.0 * sum(unused) / sum(pgsize)) FROM dbstat" 2>/dev/null || echo "?")

python3 - "$out/times.txt" "$lines" "${#files[@]}" "$input_bytes" "$zstd_bytes" "${reports:-0}" "$slack" "$exact" "${also:-}" <<'PY'
import collections, sys
rows = [l.split() for l in open(sys.argv[1])]
lines, nfiles, inb, zb, reports = map(int, sys.argv[2:7])
slack, exact = sys.argv[7], sys.argv[8]
runs = collections.defaultdict(dict)
for r, tool, s, kb, b, cpu in rows:
    runs[tool][int(r)] = (float(s), int(kb), int(b), float(cpu))
label = {
    "mqa": ("mqa ingest", "all events, validated, summaries"),
    "also": ("mqa ingest, " + sys.argv[9], "the same"),
    "chdb": ("ClickHouse (chDB) MergeTree", "quality reports"),
    "duckdb-parquet": ("DuckDB read_json → Parquet zstd", "all events"),
    "duckdb-native": ("DuckDB read_json → native table", "all events"),
    "lean": ("Python json + sqlite3 (lean baseline)", "quality reports"),
    "baseline": ("Python json + sqlite3 (full baseline)", "all events as JSON"),
}
m = runs["mqa"]
print(f"corpus: {nfiles:,} files, {lines:,} lines, {reports:,} quality reports stored, {inb/1e6:.1f} MB "
      f"({inb/nfiles/1e3:.0f} KB a file); zstd -19: {zb/1e6:.2f} MB; {len(m)} rounds, tools alternating")
print(f"variation: {exact}")
print()
# Wall time is the comparison; CPU time (user + system, all threads)
# says how much of the 2 cores each tool kept busy for it.
print("| | keeps | wall s (min–max) | vs mqa | cpu s | cpu vs mqa | on disk | peak RSS |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for tool in label:
    if tool not in runs:
        continue
    t = runs[tool]
    secs = [v[0] for v in t.values()]
    ratios = [t[r][0] / m[r][0] for r in t if r in m]
    size = max(v[2] for v in t.values())
    rss = max(v[1] for v in t.values())
    cpus = [v[3] for v in t.values()]
    cpu_ratios = [t[r][3] / m[r][3] for r in t if r in m]
    ratio = "—" if tool == "mqa" else f"{min(ratios):.1f}–{max(ratios):.1f}x"
    cpu_ratio = "—" if tool == "mqa" else f"{min(cpu_ratios):.1f}–{max(cpu_ratios):.1f}x"
    name, keeps = label[tool]
    print(f"| {name} | {keeps} | {min(secs):.2f}–{max(secs):.2f} | {ratio} | {min(cpus):.2f}–{max(cpus):.2f} | {cpu_ratio} "
          f"| {size/1e6:.1f} MB | {rss/1024:.0f} MB |")
mb = max(v[2] for v in m.values())
print()
line = f"store: {mb/zb:.2f}x of zstd -19 of the input"
if "chdb" in runs:
    cb = max(v[2] for v in runs["chdb"].values())
    line += f"; {mb/cb:.2f}x of ClickHouse's reports-only table"
print(line + f"; page slack {slack} %; mqa peak RSS {max(v[1] for v in m.values())/1024:.0f} MB")
PY
