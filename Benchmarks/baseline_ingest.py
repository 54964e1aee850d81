#!/usr/bin/env python3
"""The naive ingest a user would write instead of mqa: Python's json and
sqlite3, one row per quality report, an index on (meeting, uid, ts), other
events as JSON text rows. Validation is limited to what json.loads does; an RFC 3339 `ts` is
turned into ms (`baseline_lean.ms`).

Usage: baseline_ingest.py DB FILE...
"""
import json
import sqlite3
import sys

from baseline_lean import ms


def main():
    db = sqlite3.connect(sys.argv[1])
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("""CREATE TABLE IF NOT EXISTS reports (
        meeting TEXT, uid TEXT, ts INTEGER, loss REAL, rtt REAL, jitter REAL, bitrate REAL, mos REAL)""")
    db.execute("CREATE INDEX IF NOT EXISTS reports_key ON reports (meeting, uid, ts)")
    db.execute("CREATE TABLE IF NOT EXISTS events (meeting TEXT, uid TEXT, ts INTEGER, event TEXT, payload TEXT)")
    db.execute("CREATE INDEX IF NOT EXISTS events_key ON events (meeting, uid, ts)")
    reports = events = bad = 0
    for path in sys.argv[2:]:
        rows, others = [], []
        with open(path, "rb") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    bad += 1
                    continue
                if e.get("event") == "quality_report":
                    rows.append((e["meeting"], e["uid"], ms(e["ts"]), e["loss"], e["rtt"], e["jitter"], e["bitrate"], e["mos"]))
                else:
                    others.append((e["meeting"], e["uid"], ms(e["ts"]), e["event"], json.dumps(e)))
        with db:
            db.executemany("INSERT INTO reports VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", others)
        reports += len(rows)
        events += len(others)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(f"baseline: {reports} reports, {events} other events, {bad} bad lines")


if __name__ == "__main__":
    main()
