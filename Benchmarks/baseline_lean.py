#!/usr/bin/env python3
"""The lean ingest users write first: Python's json and sqlite3, one table
report(meeting, uid, ts, loss, rtt, jitter, bitrate, mos) with an index on
(meeting, uid, ts), only quality_report lines kept, rows inserted with
executemany in batches of 100,000, one commit at the end, default pragmas.
The bar the performance issue measures mqa against. A `ts` that is an
RFC 3339 string (the contract allows it) is turned into ms, as the user
would have to for the index to order the rows.

Usage: baseline_lean.py DB FILE...
"""
import datetime
import json
import sqlite3
import sys

BATCH = 100_000


def ms(ts):
    """`ts` as ms since the epoch: an integer as it is, an RFC 3339 string parsed."""
    if isinstance(ts, str):
        t = datetime.datetime.fromisoformat(ts)
        return round(t.timestamp() * 1000)
    return ts


def main():
    db = sqlite3.connect(sys.argv[1])
    db.execute("CREATE TABLE IF NOT EXISTS report (meeting TEXT, uid TEXT, ts INTEGER, "
               "loss REAL, rtt REAL, jitter REAL, bitrate REAL, mos REAL)")
    db.execute("CREATE INDEX IF NOT EXISTS report_key ON report (meeting, uid, ts)")
    insert = "INSERT INTO report VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    rows = []
    reports = bad = 0
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    bad += 1
                    continue
                if e.get("event") != "quality_report":
                    continue
                rows.append((e["meeting"], e["uid"], ms(e["ts"]), e["loss"], e["rtt"], e["jitter"], e["bitrate"], e["mos"]))
                if len(rows) >= BATCH:
                    db.executemany(insert, rows)
                    reports += len(rows)
                    rows = []
    db.executemany(insert, rows)
    reports += len(rows)
    db.commit()
    print(f"lean baseline: {reports} reports, {bad} bad lines")


if __name__ == "__main__":
    main()
