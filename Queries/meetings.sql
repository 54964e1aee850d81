-- Every meeting: title, engine, time span, participants and stored volume.
-- Parameters: none.
SELECT m.meeting,
       s.title,
       s.engine,
       datetime(s.start_ts / 1000, 'unixepoch') AS start_utc,
       (s.end_ts - s.start_ts) / 1000 AS duration_s,
       s.participants,
       s.warm_reports,
       (SELECT coalesce(sum(r.count), 0) FROM report_chunks r JOIN clients c ON c.id = r.client_id
         WHERE c.meeting_id = m.id) AS reports
FROM meetings m
LEFT JOIN meeting_summary s ON s.meeting_id = m.id
ORDER BY s.start_ts, m.meeting;
