-- Meetings ranked worst first by the fleet score: stalled video seconds + warm seconds in poor/bad + 30 s per abnormal disconnect.
-- The score is FleetScore's (Sources/MQADomain, the fleet report's); this file is its only SQL form.
-- param: :since integer optional  ms since the epoch: only meetings that started at or after it
-- param: :until integer optional  ms since the epoch: only meetings that started before it
-- param: :limit integer optional  at most this many meetings (default 50; a negative number: all)
-- Reads the summaries ingest keeps (default tier config).
SELECT m.meeting,
       s.title,
       s.engine,
       s.start_ts AS start,
       s.participants,
       s.end_ts - s.start_ts AS duration_ms,
       round(s.stalled_ms / 1000.0 + s.low_tier_ms / 1000.0 + 30 * s.abnormal_disconnects, 1) AS score,
       s.stalls,
       s.stalled_ms,
       -- A CDN meeting has no quality feed: no tier time, not a perfect 0.
       CASE WHEN s.engine = 'cdn' THEN NULL ELSE s.low_tier_ms END AS low_tier_ms,
       s.abnormal_disconnects,
       json_array_length(s.issues) AS issues
FROM meeting_summary s
JOIN meetings m ON m.id = s.meeting_id
WHERE (:since IS NULL OR s.start_ts >= :since) AND (:until IS NULL OR s.start_ts < :until)
ORDER BY score DESC, m.meeting
LIMIT coalesce(:limit, 50);
