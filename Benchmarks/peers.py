#!/usr/bin/env python3
"""The peers of the ingest benchmark: what a user would set up with an
analytical engine instead of mqa, on the same NDJSON files.

Usage: peers.py ENGINE OUT LOGS_DIR
  chdb            ClickHouse in-process (chDB): quality reports only, a
                  MergeTree table ordered by (meeting, uid, ts), DoubleDelta
                  on ts, Gorilla on the five metrics, ZSTD on every column;
                  OUT is the session directory
  duckdb-parquet  DuckDB read_json (every event, fields unioned by name)
                  → one Parquet file, zstd, sorted by (meeting, uid, ts)
  duckdb-native   DuckDB read_json → a table in a DuckDB file, same rows

Each prints one JSON line: {"rows": …, "bytes": …} (bytes on disk of
what it keeps). `ts` may be integer ms or an RFC 3339 string in the
inputs; both engines are given it as text and turn it into ms. Neither
validates a line the way mqa does (ranges, types, duplicates): they keep
what their JSON reader accepts.

Run in the venv Benchmarks/ingest.sh makes (~/.cache/mqa/bench-venv).
"""
import json
import os
import sys


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def chdb_reports(out, logs):
    from chdb import session
    s = session.Session(out)
    s.query("DROP TABLE IF EXISTS reports")
    s.query("""
        CREATE TABLE reports (
            meeting LowCardinality(String) CODEC(ZSTD(3)),
            uid LowCardinality(String) CODEC(ZSTD(3)),
            ts Int64 CODEC(DoubleDelta, ZSTD(3)),
            loss Float64 CODEC(Gorilla, ZSTD(3)),
            rtt Float64 CODEC(Gorilla, ZSTD(3)),
            jitter Float64 CODEC(Gorilla, ZSTD(3)),
            bitrate Float64 CODEC(Gorilla, ZSTD(3)),
            mos Float64 CODEC(Gorilla, ZSTD(3))
        ) ENGINE = MergeTree ORDER BY (meeting, uid, ts)""")
    schema = ("ts String, event String, meeting String, uid String, loss Float64, rtt Float64, "
              "jitter Float64, bitrate Float64, mos Nullable(Float64)")
    s.query(f"""
        INSERT INTO reports
        SELECT meeting, uid,
               if(match(ts, '^-?[0-9]+$'), toInt64(ts),
                  toUnixTimestamp64Milli(parseDateTime64BestEffort(ts, 3, 'UTC'))),
               loss, rtt, jitter, bitrate, ifNull(mos, 0)
        FROM file('{os.path.abspath(logs)}/**/*.ndjson', JSONEachRow, '{schema}')
        WHERE event = 'quality_report'
        SETTINGS input_format_json_read_numbers_as_strings = 1, input_format_skip_unknown_fields = 1""")
    rows = int(str(s.query("SELECT count() FROM reports", "CSV")).strip())
    size = int(str(s.query(
        "SELECT sum(bytes_on_disk) FROM system.parts WHERE table = 'reports' AND active", "CSV")).strip())
    s.close()
    return rows, size


def duckdb_parquet(out, logs):
    import duckdb
    con = duckdb.connect()
    con.execute(f"COPY ({select_any(con, logs)}) TO '{out}' (FORMAT parquet, COMPRESSION zstd)")
    rows = con.execute(f"SELECT count(*) FROM '{out}'").fetchone()[0]
    return rows, os.path.getsize(out)


def duckdb_native(out, logs):
    import duckdb
    if os.path.exists(out):
        os.remove(out)
    con = duckdb.connect(out)
    con.execute(f"CREATE TABLE events AS {select_any(con, logs)}")
    rows = con.execute("SELECT count(*) FROM events").fetchone()[0]
    con.execute("CHECKPOINT")
    con.close()
    wal = out + ".wal"
    return rows, os.path.getsize(out) + (os.path.getsize(wal) if os.path.exists(wal) else 0)


def select_any(con, logs):
    """The SELECT over read_json, ts read as text: the inferred type of a
    field that is a number on some lines and a string on others."""
    path = f"{os.path.abspath(logs)}/**/*.ndjson"
    # read_json infers JSON for such a field; its text keeps the quotes.
    ts = "trim(CAST(ts AS VARCHAR), '\"')"
    return f"""
        SELECT * REPLACE (
            CASE WHEN regexp_full_match({ts}, '-?[0-9]+') THEN {ts}::BIGINT
                 ELSE epoch_ms({ts}::TIMESTAMPTZ) END AS ts)
        FROM read_json('{path}', format = 'newline_delimited', union_by_name = true)
        ORDER BY meeting, uid, ts"""


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    engine, out, logs = sys.argv[1:]
    run = {"chdb": chdb_reports, "duckdb-parquet": duckdb_parquet, "duckdb-native": duckdb_native}.get(engine)
    if run is None:
        sys.exit(__doc__)
    rows, size = run(out, logs)
    print(json.dumps({"rows": rows, "bytes": size}))


if __name__ == "__main__":
    main()
