-- Meetings ranked worst first by the fleet score: stalled video seconds + warm seconds in poor/bad + 30 s per abnormal disconnect.
-- Parameters: none. Reads the summaries ingest keeps (default tier config).
SELECT m.meeting,
       s.title,
       s.engine,
       s.participants,
       (s.end_ts - s.start_ts) / 1000 AS duration_s,
       round(s.stalled_ms / 1000.0 + s.low_tier_ms / 1000.0 + 30 * s.abnormal_disconnects, 1) AS score,
       s.stalls,
       s.stalled_ms / 1000 AS stalled_s,
       s.low_tier_ms / 1000 AS poor_or_bad_s,
       s.abnormal_disconnects,
       json_array_length(s.issues) AS issues
FROM meeting_summary s
JOIN meetings m ON m.id = s.meeting_id
ORDER BY score DESC, m.meeting
LIMIT 50;
