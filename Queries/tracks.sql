-- The video subscriptions of one meeting: first frame, stalls and stall ratio per subscriber and track.
-- param: :meeting text           the meeting id (in mqa, a unique prefix works too)
-- param: :uid text optional      only this subscriber (a unique prefix of a uid in the meeting works too)
SELECT t.subscriber,
       t.publisher,
       t.track,
       t.kind,
       t.first_frame_ts - t.subscribe_ts AS time_to_first_frame_ms,
       t.stall_count AS stalls,
       t.stalled_ms,
       round(t.stall_ratio, 4) AS stall_ratio
FROM track_summary t
JOIN meetings m ON m.id = t.meeting_id
WHERE m.meeting = :meeting AND (:uid IS NULL OR t.subscriber = :uid)
ORDER BY t.publisher, t.track, t.subscriber, t.subscribe_ts;
