-- The video subscriptions of one meeting: first frame, stalls and stall ratio per subscriber and track.
-- Parameters: :meeting (the meeting id).
SELECT t.subscriber,
       t.publisher,
       t.track,
       t.kind,
       t.first_frame_ts - t.subscribe_ts AS first_frame_ms,
       t.stall_count AS stalls,
       t.stalled_ms,
       round(t.stall_ratio, 4) AS stall_ratio
FROM track_summary t
JOIN meetings m ON m.id = t.meeting_id
WHERE m.meeting = :meeting
ORDER BY t.publisher, t.track, t.subscriber, t.subscribe_ts;
