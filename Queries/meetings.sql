-- Every meeting: title, engine, time span, participants and stored volume.
-- param: :since integer optional  ms since the epoch: only meetings that started at or after it
-- param: :until integer optional  ms since the epoch: only meetings that started before it
-- `mqa query meetings --since 2026-11-29` sets them; unset (NULL, as in the sqlite3 shell) is an open end.
SELECT m.meeting,
       s.title,
       s.engine,
       s.start_ts AS start,
       datetime(s.start_ts / 1000, 'unixepoch') AS start_utc,
       s.end_ts - s.start_ts AS duration_ms,
       s.participants,
       s.warm_reports,
       (SELECT coalesce(sum(r.count), 0) FROM report_chunks r JOIN clients c ON c.id = r.client_id
         WHERE c.meeting_id = m.id) AS reports
FROM meetings m
LEFT JOIN meeting_summary s ON s.meeting_id = m.id
WHERE (:since IS NULL OR s.start_ts >= :since) AND (:until IS NULL OR s.start_ts < :until)
ORDER BY s.start_ts, m.meeting;
