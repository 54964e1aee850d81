#!/usr/bin/env python3
"""Where a store's bytes go: pages per table and index (SQLite's dbstat),
then the chunk blobs section by section (Docs/store.md, chunk encodings 3
and 4), each against an order-0 entropy bound of what it holds.

Usage: storage.py STORE [--sample N]
  --sample N  decode every Nth chunk only (default 1: all of them)

Needs the sqlite3 shell (dbstat) and the `zstandard` module (the bench
venv: Benchmarks/ingest.sh installs it there). For each section: the bytes
stored (a zstd frame or the bytes as they are), the bytes it holds once
decompressed, and H0: the symbols' order-0 entropy plus, for bucket-coded
columns, the raw low bits they sent to the raw-bits section (counted with
the column here, not under "raw bits"). Stored below H0 means zstd found
more than symbol frequencies (repeats); far above it means frame and table
overhead of small sections, or columns zstd cannot model.
"""
import collections
import math
import sqlite3
import subprocess
import sys

import zstandard

REPORT_SECTIONS = ("ts", "loss", "rtt", "jitter", "bitrate", "mos")
EVENT_SECTIONS = ("text", "ts", "columns")


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def sections(body, i):
    """The sections of a chunk body from `i`: (stored bytes, content) each."""
    d = zstandard.ZstdDecompressor()
    out = []
    while i < len(body):
        h, j = varint(body, i)
        length, compressed = h >> 1, h & 1
        raw = body[j:j + length]
        content = d.decompress(raw, max_output_size=1 << 24) if compressed else raw
        out.append((j + length - i, content))
        i = j + length
    return out


def raw_bits(symbols):
    """Low bits that bucket symbols ≥ 16 sent to the raw-bits section."""
    bits = 0
    for s in symbols:
        if s >= 16:
            bits += (s - 16) // 4 + 5 - 3
    return bits


def h0(data):
    """Order-0 entropy of `data`, in bytes."""
    if not data:
        return 0.0
    counts = collections.Counter(data)
    n = len(data)
    return sum(-c * math.log2(c / n) for c in counts.values()) / 8


def report_symbols(name, content, n):
    """The bucket symbols of a report section (its header bytes skipped)."""
    if name == "ts":
        i = 0
        if n > 1:
            _, i = varint(content, 0)
            _, i = varint(content, i)
        return content[i:]
    if not content or content[0] != 0:
        return b""  # binary or exact-decimal mode: no symbols
    has_nulls = content[2]
    return content[3 + ((n + 7) // 8 if has_nulls else 0):]


def main():
    args = sys.argv[1:]
    sample = 1
    if "--sample" in args:
        k = args.index("--sample")
        sample = int(args[k + 1])
        del args[k:k + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    path = args[0]
    total = 0
    print("## Pages (dbstat)\n")
    print("| table or index | bytes | share | payload | unused |")
    print("|---|---:|---:|---:|---:|")
    rows = subprocess.run(
        ["sqlite3", "-separator", "\t", path,
         "SELECT name, sum(pgsize), sum(payload), sum(unused) FROM dbstat GROUP BY name ORDER BY 2 DESC"],
        capture_output=True, text=True, check=True).stdout.split("\n")
    stats = [r.split("\t") for r in rows if r]
    total = sum(int(r[1]) for r in stats)
    for name, size, payload, unused in stats:
        print(f"| {name} | {int(size):,} | {100 * int(size) / total:.1f} % | {int(payload):,} | {int(unused):,} |")
    print(f"| **all** | {total:,} | | | |")

    db = sqlite3.connect(path)
    for table, names in (("report_chunks", REPORT_SECTIONS), ("event_chunks", EVENT_SECTIONS)):
        stored = collections.Counter()
        held = collections.Counter()
        bound = collections.Counter()
        chunks = items = blob_bytes = envelope = 0
        for k, (count, data) in enumerate(db.execute(f"SELECT count, data FROM {table}")):
            if k % sample:
                continue
            chunks += 1
            items += count
            blob_bytes += len(data)
            if data[0] not in (3, 4):
                continue
            n, i = varint(data, 5)
            if table == "report_chunks":
                _, i = varint(data, i)
            envelope += i
            parts = sections(data, i)
            for (size, content), name in zip(parts, names + ("raw bits",)):
                stored[name] += size
                held[name] += len(content)
                if name == "raw bits":
                    continue
                if table == "report_chunks":
                    symbols = report_symbols(name, content, n)
                elif name == "ts" and content:
                    _, j = varint(content, 1)  # byte order, zigzag first
                    symbols = content[j:]
                else:
                    symbols = b""
                bound[name] += h0(content) + raw_bits(symbols) / 8
                if symbols:
                    # The column's raw bits are charged to it, not to "raw bits".
                    stored[name] += raw_bits(symbols) / 8
                    stored["raw bits"] -= raw_bits(symbols) / 8
        print(f"\n## {table}: {chunks:,} chunks, {items:,} items, {blob_bytes:,} bytes of blobs"
              f" ({blob_bytes / max(items, 1):.2f} a item)\n")
        print("| section | stored | a item | decompressed | H0 bound | stored / H0 |")
        print("|---|---:|---:|---:|---:|---:|")
        print(f"| envelope, counts | {envelope:,} | {envelope / max(items, 1):.2f} | | | |")
        for name in names + ("raw bits",):
            s, b = stored[name], bound[name]
            ratio = f"{s / b:.2f}" if b else ""
            print(f"| {name} | {s:,.0f} | {s / max(items, 1):.2f} | {held[name]:,} | {b:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()
