#!/usr/bin/env python3
"""Rewrites `mqa simulate` logs into logs as messy as real ones, and a
reference copy of the same events, so that the benchmark measures the
ingest on what apps upload and the variation can be proven exact.

Usage: vary_corpus.py IN_DIR OUT_DIR [--seed S] [--file-kb K]

Writes OUT_DIR/reference/ (one file per client, as simulated, only the
ids renamed) and OUT_DIR/varied/ (the same events, rewritten as below),
and OUT_DIR/vary.json (what was done, counted). Ingesting either must
reject nothing, and `mqa export` of the two stores must be byte-identical:
every change below is one the event-log contract (shared/spec/event-log.md)
says leaves the events as they were.

What varies, per client (each client is one app build with its own logger):
- files: the log is cut into pieces of ~K KB on average (uploads in parts),
  named so that a client's pieces sort in order;
- field order: fixed per client (the simulator's, alphabetical, payload
  first, a random permutation) or shuffled on every line (a map logger);
- spacing: compact or `{"ts": 1, "event": ...}` (Python's json.dumps);
- unknown extra fields on a share of lines: level, seq, appState, netType
  (not on the events that define it), thread, a nested ctx object;
- timestamps: integer ms, or RFC 3339 strings (Z, +hh:mm offsets, with
  and without a fraction when the millisecond is 0) on a share of clients,
  on some clients only on some lines;
- ids: a share of meetings and clients renamed to non-ASCII ids (accents,
  CJK, Cyrillic, an emoji beyond the BMP), in both copies alike; some
  clients write them as \\u escapes (ensure_ascii loggers);
- order: neighbouring lines of different ts swapped (async loggers); lines
  of the same ts keep their order (the contract's same-millisecond rule);
- duplicates: a few lines logged twice, a few lines later (a retried
  write), byte-identical or with other extra fields (which do not count);
- line ends: \\n or \\r\\n per client, and a blank line now and then.
Numbers keep their exact text (parsed as text, written back as is).
Clients are rewritten on every core; the output depends on the seed and
the input only (each client's randomness is seeded by its path).
"""
import datetime
import json
import multiprocessing
import os
import random
import sys

# The output's version: bump it when a change makes other files, so that
# Benchmarks/ingest.sh makes its corpus anew.
VERSION = "mqa.vary/2"


class Raw(str):
    """A JSON number's text, written back unchanged."""


def load(line):
    return json.loads(line, parse_int=Raw, parse_float=Raw, parse_constant=Raw)


def encode(v, ascii_only, spaced):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=ascii_only)
    sep, colon = (", ", ": ") if spaced else (",", ":")
    if isinstance(v, list):
        return "[" + sep.join(encode(x, ascii_only, spaced) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + sep.join(json.dumps(k, ensure_ascii=ascii_only) + colon + encode(x, ascii_only, spaced)
                              for k, x in v.items()) + "}"
    raise TypeError(type(v))


ENVELOPE = ("ts", "event", "meeting", "uid")
# Payload fields that hold a uid or a meeting id, renamed with the envelope's.
UID_FIELDS = ("publisher", "target", "opUid")
# sub_meeting_move's target is a meeting id.
MEETING_TARGET_EVENTS = ("sub_meeting_move",)
# Extras that are fields of some events (closed lists there): never added to those.
OWN_FIELDS = {("netType", "meeting_join"), ("netType", "network_change")}
PREFIXES = ("réunion·", "会议·", "встреча·", "Zoë·", "🎧·", "équipe-α·", "ünïcødé·")
UID_PREFIXES = ("ü·", "李·", "Дима·", "José·", "😀·", "Ωmega·")


def rename(ident, prefixes, rng_seed, share):
    r = random.Random(f"{rng_seed}:{ident}")
    if r.random() >= share:
        return ident
    return r.choice(prefixes) + ident


def instant(ts):
    """A `ts` value (number text or RFC 3339 string) as ms since the epoch."""
    if isinstance(ts, Raw):
        return int(ts)
    t = datetime.datetime.fromisoformat(ts.replace("z", "Z").replace("t", "T"))
    if t.tzinfo is None:
        raise ValueError(f"ts without an offset: {ts}")
    us = (t - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(microseconds=1)
    return us // 1000


def rfc3339(ms, style, r):
    """`ms` as an RFC 3339 string in one of a client's styles (exact to the ms)."""
    offset_min = 0
    if style == "offset":
        offset_min = r.choice((60, 120, -300, 330, -480, 0))
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms + offset_min * 60_000)
    text = t.strftime("%Y-%m-%dT%H:%M:%S")
    millis = ms % 1000
    if style == "seconds-when-whole" and millis == 0:
        pass
    elif style == "micros":
        text += f".{millis:03d}000"
    else:
        text += f".{millis:03d}"
    if style == "offset" and offset_min != 0:
        sign = "+" if offset_min > 0 else "-"
        a = abs(offset_min)
        text += f"{sign}{a // 60:02d}:{a % 60:02d}"
    else:
        text += "Z"
    return text


class ClientStyle:
    def __init__(self, r):
        self.order = r.choices(("simulator", "alphabetical", "payload-first", "permutation", "per-line"),
                               weights=(30, 20, 15, 20, 15))[0]
        self.permutation_seed = r.random()
        self.spaced = r.random() < 0.3
        self.ascii_only = r.random() < 0.4
        self.crlf = r.random() < 0.1
        self.blank_rate = 0.002 if r.random() < 0.2 else 0.0
        self.extra_rate = r.choice((0.0, 0.0, 0.1, 0.5, 1.0))
        self.extras = r.sample(("level", "seq", "appState", "netType", "thread", "ctx"), r.randint(1, 4))
        ts_kind = r.random()
        self.ts_string_rate = 0.0 if ts_kind < 0.6 else (1.0 if ts_kind < 0.85 else 0.3)
        self.ts_style = r.choice(("millis", "millis", "offset", "seconds-when-whole", "micros"))
        self.swap_rate = r.choice((0.0, 0.01, 0.03, 0.08))
        self.dup_rate = r.choice((0.0, 0.0, 0.001, 0.003))


def vary_client(lines, style, r, stats):
    """The varied lines of one client's log (a list of str without newlines)."""
    events = [load(x) for x in lines]
    # Neighbour swaps on disjoint pairs whose ts differ: same-ts lines keep
    # their order, as the contract's same-millisecond rule needs.
    i = 0
    while i + 1 < len(events):
        if r.random() < style.swap_rate and instant(events[i]["ts"]) != instant(events[i + 1]["ts"]):
            events[i], events[i + 1] = events[i + 1], events[i]
            stats["swapped"] += 1
            i += 2
        else:
            i += 1
    # Duplicates: a copy a few lines later (after the pass above, so no swap moves it).
    out_events = []
    pending = []  # (position, event)
    for n, e in enumerate(events):
        out_events.append(e)
        if r.random() < style.dup_rate:
            pending.append((n + r.randint(1, 5), e))
        while pending and pending[0][0] <= n:
            out_events.append(pending.pop(0)[1])
            stats["duplicated"] += 1
    for _, e in pending:
        out_events.append(e)
        stats["duplicated"] += 1
    seq = r.randint(0, 10_000)
    rows = []
    for e in out_events:
        seq += 1
        d = dict(e)
        if r.random() < style.ts_string_rate:
            d["ts"] = rfc3339(instant(e["ts"]), style.ts_style, r)
            stats["stringTs"] += 1
        if r.random() < style.extra_rate:
            for name in style.extras:
                if name in d or (name, d["event"]) in OWN_FIELDS:
                    continue  # a field of this event: not an extra one
                d[name] = {
                    "level": lambda: r.choice(("info", "debug", "warn")),
                    "seq": lambda: Raw(str(seq)),
                    "appState": lambda: r.choice(("foreground", "background", "inactive")),
                    "netType": lambda: r.choice(("wifi", "cellular", "5G")),
                    "thread": lambda: r.choice(("main", "rtc-worker", "com.apple.root.default-qos")),
                    "ctx": lambda: {"build": Raw(str(r.randint(1000, 9999))), "flags": ["a", "b"], "x": None},
                }[name]()
            stats["extraFields"] += 1
        keys = list(d.keys())
        if style.order == "alphabetical":
            keys.sort()
        elif style.order == "payload-first":
            keys = [k for k in keys if k not in ENVELOPE] + [k for k in keys if k in ENVELOPE]
        elif style.order == "permutation":
            keys.sort(key=lambda k: random.Random(f"{style.permutation_seed}:{k}").random())
        elif style.order == "per-line":
            r.shuffle(keys)
        rows.append(encode({k: d[k] for k in keys}, style.ascii_only, style.spaced))
        if style.blank_rate and r.random() < style.blank_rate:
            rows.append("")
    return rows


def renamed(line, seed):
    e = load(line)
    e["meeting"] = rename(e["meeting"], PREFIXES, seed, 0.3)
    e["uid"] = rename(e["uid"], UID_PREFIXES, seed, 0.25)
    for f in UID_FIELDS:
        if isinstance(e.get(f), str):
            if e["event"] in MEETING_TARGET_EVENTS and f == "target":
                e[f] = rename(e[f], PREFIXES, seed, 0.3)
            else:
                e[f] = rename(e[f], UID_PREFIXES, seed, 0.25)
    if isinstance(e.get("speakers"), list):
        e["speakers"] = [rename(s, UID_PREFIXES, seed, 0.25) if isinstance(s, str) else s for s in e["speakers"]]
    return e


def vary_file(job):
    """Writes one client's reference file and varied pieces; returns its counts."""
    src, ref_dir, var_dir, rel, seed, file_kb = job
    stats = dict(clients=1, files=0, lines=0, swapped=0, duplicated=0, stringTs=0, extraFields=0, bytes=0)
    r = random.Random(f"{seed}:{rel}")
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        lines = [x.rstrip("\r\n") for x in f if x.strip()]
    events = [renamed(x, seed) for x in lines]
    ref_lines = [encode(e, False, False) for e in events]
    os.makedirs(os.path.dirname(os.path.join(ref_dir, rel)), exist_ok=True)
    with open(os.path.join(ref_dir, rel), "w", encoding="utf-8", newline="") as f:
        f.write("".join(x + "\n" for x in ref_lines))
    style = ClientStyle(r)
    rows = vary_client(ref_lines, style, r, stats)
    end = "\r\n" if style.crlf else "\n"
    # Pieces of K KB on average (uniform in 0.3K–1.7K), cut at line ends.
    base = os.path.join(var_dir, rel[: -len(".ndjson")])
    os.makedirs(os.path.dirname(base), exist_ok=True)
    piece, size, n = [], 0, 0
    limit = r.uniform(0.3, 1.7) * file_kb * 1024
    for i, row in enumerate(rows):
        piece.append(row)
        size += len(row) + len(end)
        if size >= limit or i == len(rows) - 1:
            data = "".join(x + end for x in piece).encode("utf-8")
            with open(f"{base}.{n:04d}.ndjson", "wb") as f:
                f.write(data)
            stats["files"] += 1
            stats["bytes"] += len(data)
            piece, size, n = [], 0, n + 1
            limit = r.uniform(0.3, 1.7) * file_kb * 1024
    stats["lines"] += len(rows)
    return stats


def main():
    args = sys.argv[1:]
    if args == ["--version"]:
        print(VERSION)
        return
    seed, file_kb = 7, 100
    positional = []
    while args:
        a = args.pop(0)
        if a == "--seed":
            seed = int(args.pop(0))
        elif a == "--file-kb":
            file_kb = int(args.pop(0))
        else:
            positional.append(a)
    if len(positional) != 2:
        sys.exit(__doc__)
    src, dst = positional
    ref_dir, var_dir = os.path.join(dst, "reference"), os.path.join(dst, "varied")
    rels = sorted(os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src) for f in fs if f.endswith(".ndjson"))
    jobs = [(src, ref_dir, var_dir, rel, seed, file_kb) for rel in rels]
    stats = dict(clients=0, files=0, lines=0, swapped=0, duplicated=0, stringTs=0, extraFields=0, bytes=0)
    with multiprocessing.Pool() as pool:
        for part in pool.imap_unordered(vary_file, jobs, chunksize=8):
            for k, v in part.items():
                stats[k] += v
    with open(os.path.join(dst, "vary.json"), "w") as f:
        json.dump({"schema": VERSION, **stats, "seed": seed, "fileKB": file_kb}, f, indent=1)
        f.write("\n")
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
