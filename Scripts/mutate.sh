#!/usr/bin/env bash
# Mutation testing of the rules the spec pins down (tiers.md, incidents.md)
# and of the chunk codecs and the line parser.
#
#   Scripts/mutate.sh                 every mutation of Scripts/mutations.txt
#   Scripts/mutate.sh 'tier-|cold-'   only those whose id matches the regex
#   Scripts/mutate.sh --check [RE]    only check that every snippet is found
#                                     exactly once (no build, a second)
#
# For each mutation: the file is found by its base name under Sources/, the
# exact `old` snippet (which must occur exactly once) is replaced by `new`,
# the tests are built (`swift build --build-tests`) and the mutation's
# focused suites run (`swift test --skip-build --filter FILTER`). A failing
# run kills the mutant; the test expected to kill it must be among the
# failures, so the list stays honest. The file is restored afterwards, also
# on Ctrl-C or a failed build. Prints one line per mutation and the kill
# rate; exits 1 when a mutant survived, was killed by an unexpected test,
# or did not compile, 2 when the list is stale (a snippet not found once).
#
# The data file has one block per mutation, blank-line separated, `#`
# comments allowed:
#     id: tier-step6-up-reset
#     file: TierMachine.swift
#     old: "} else {\n            up = 0; down = 0"
#     new: "} else {\n            down = 0"
#     filter: SpecTierMachineTests
#     killer: tier machine step 6: a report in the current tier resets both counters
# A value in double quotes is a JSON string (for \n and leading spaces);
# otherwise it is taken as written. `killer` is a test's display name, or
# its function name with `()` for tests without one.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
list=${MUTATIONS:-Scripts/mutations.txt}
check_only=0
if [ "${1:-}" = "--check" ]; then check_only=1; shift; fi
select=${1:-.}

work=$(mktemp -d "${TMPDIR:-/tmp}/mqa-mutate.XXXXXX")
backup=""   # path of the file under mutation, while it is mutated
restore() {
    if [ -n "$backup" ]; then
        cp "$work/backup" "$backup"
        echo "restored $backup" >&2
        backup=""
    fi
}
cleanup() { restore; rm -rf "$work"; }
trap cleanup EXIT
trap 'echo "interrupted" >&2; restore; echo "note: .build holds a mutant; run swift build --build-tests" >&2; exit 130' INT TERM HUP

# Parses the list into one record per line: id, path, filter, killer, old, new
# (old/new base64), checking every snippet occurs exactly once.
python3 - "$list" "$select" > "$work/records" <<'PY' || { echo "mutate.sh: the mutation list is stale or malformed" >&2; exit 2; }
import base64, json, os, re, subprocess, sys
path, select = sys.argv[1], re.compile(sys.argv[2])
blocks, cur = [], {}
for n, line in enumerate(open(path, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if line.startswith("#"):
        continue
    if not line.strip():
        if cur: blocks.append(cur); cur = {}
        continue
    key, sep, value = line.partition(": ")
    if not sep or key not in ("id", "file", "old", "new", "filter", "killer"):
        sys.exit(f"{path}:{n}: expected 'key: value', got {line!r}")
    if value.startswith('"'):
        value = json.loads(value)
    cur[key] = value
if cur: blocks.append(cur)
bad, ids = 0, set()
for b in blocks:
    missing = [k for k in ("id", "file", "old", "new", "filter", "killer") if k not in b]
    if missing:
        print(f"mutation {b.get('id', '?')}: missing {', '.join(missing)}", file=sys.stderr); bad += 1; continue
    if b["id"] in ids:
        print(f"mutation {b['id']}: duplicate id", file=sys.stderr); bad += 1
    ids.add(b["id"])
    if not select.search(b["id"]):
        continue
    found = subprocess.run(["find", "Sources", "-type", "f", "-name", b["file"]], capture_output=True, text=True).stdout.split()
    if len(found) != 1:
        print(f"mutation {b['id']}: {len(found)} files named {b['file']} under Sources/", file=sys.stderr); bad += 1; continue
    text = open(found[0], encoding="utf-8").read()
    count = text.count(b["old"])
    if count != 1:
        print(f"mutation {b['id']}: the old snippet occurs {count} times in {found[0]}: {b['old']!r}", file=sys.stderr)
        bad += 1; continue
    enc = lambda s: base64.b64encode(s.encode()).decode()
    print("\t".join([b["id"], found[0], b["filter"], b["killer"], enc(b["old"]), enc(b["new"])]))
if bad:
    sys.exit(1)
PY

total=$(wc -l < "$work/records")
if [ "$total" -eq 0 ]; then echo "no mutation matches '$select'" >&2; exit 2; fi
if [ "$check_only" -eq 1 ]; then echo "all $total snippets found exactly once"; exit 0; fi

build() { swift build --build-tests < /dev/null > "$work/build.log" 2>&1; }
echo "baseline: building and running the focused suites on the unmutated tree" >&2
filters=$(cut -f3 "$work/records" | sort -u | paste -sd'|')
if ! build; then tail -30 "$work/build.log" >&2; echo "mutate.sh: the unmutated tree does not build" >&2; exit 1; fi
if ! swift test --skip-build --filter "$filters" < /dev/null > "$work/test.log" 2>&1; then
    grep -a '✘' "$work/test.log" | head -20 >&2
    echo "mutate.sh: the focused suites fail on the unmutated tree" >&2; exit 1
fi

killed=0 survived=0 broken=0 strays=0 i=0
start=$(date +%s)
while IFS=$'\t' read -r -u 3 id file filter killer old new; do
    i=$((i + 1))
    cp "$file" "$work/backup"
    backup=$file
    python3 - "$file" "$old" "$new" <<'PY'
import base64, sys
path, old, new = sys.argv[1], base64.b64decode(sys.argv[2]).decode(), base64.b64decode(sys.argv[3]).decode()
text = open(path, encoding="utf-8").read()
assert text.count(old) == 1, f"{path}: snippet not found exactly once"
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
    t0=$(date +%s)
    if ! build; then
        restore
        broken=$((broken + 1))
        printf '%-28s BUILD FAILED (the mutant does not compile)\n' "$id"
        grep -a 'error:' "$work/build.log" | head -3 | sed 's/^/    /' || true
        continue
    fi
    status=0
    timeout 900 swift test --skip-build --filter "$filter" < /dev/null > "$work/test.log" 2>&1 || status=$?
    restore
    secs=$(( $(date +%s) - t0 ))
    if [ "$status" -eq 0 ]; then
        survived=$((survived + 1))
        printf '%-28s SURVIVED (%s, %ss)\n' "$id" "$filter" "$secs"
        continue
    fi
    killed=$((killed + 1))
    # Failed tests: ✘ Test "display name" [with N test cases] failed …, or ✘ Test name() failed …
    # (bytes, not characters: a failure message may quote invalid UTF-8)
    LC_ALL=C sed 's/\x1b\[[0-9;]*m//g' "$work/test.log" \
        | LC_ALL=C sed -n -E 's/^.*✘ Test ("([^"]*)"|([^ ]+)) (with [0-9]+ test cases? )?failed.*$/\2\3/p' | sort -u > "$work/failed"
    if [ "$status" -eq 124 ]; then
        printf '%-28s KILLED by a timeout (%ss)\n' "$id" "$secs"
        [ "$killer" = "timeout" ] || strays=$((strays + 1))
    elif grep -qxF -- "$killer" "$work/failed"; then
        others=$(( $(wc -l < "$work/failed") - 1 ))
        printf '%-28s KILLED by %s%s (%ss)\n' "$id" "$killer" "$([ "$others" -gt 0 ] && echo " (+$others more)")" "$secs"
    elif [ -s "$work/failed" ]; then
        strays=$((strays + 1))
        printf '%-28s KILLED by %s, NOT by the expected "%s" (%ss)\n' "$id" "$(head -1 "$work/failed")" "$killer" "$secs"
    else
        printf '%-28s KILLED by a crash (exit %s), NOT by the expected "%s" (%ss)\n' "$id" "$status" "$killer" "$secs"
        [ "$killer" = "crash" ] || strays=$((strays + 1))
    fi
done 3< "$work/records"

echo "rebuilding the unmutated tree" >&2
build || echo "mutate.sh: warning: the final rebuild failed" >&2
ran=$((killed + survived))
echo "----"
echo "$killed of $ran mutants killed ($(( ran > 0 ? 100 * killed / ran : 0 ))%), $survived survived, $broken did not compile, $strays killed by an unexpected test; $(( ($(date +%s) - start) / 60 )) min"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ] && [ "$strays" -eq 0 ]
