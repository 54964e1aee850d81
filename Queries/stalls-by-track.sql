-- Video stalls per published track: how many, how long, how many subscribers saw them, and how many began under a good or excellent tier.
-- param: :limit integer optional  at most this many tracks (default 100; a negative number: all)
-- Reads the summaries ingest keeps (default tier config).
SELECT m.meeting,
       t.publisher,
       t.track,
       sum(t.stall_count) AS stalls,
       sum(t.stalled_ms) AS stalled_ms,
       -- Distinct subscribers: one who resubscribed has several rows.
       count(DISTINCT CASE WHEN t.stall_count > 0 THEN t.subscriber END) AS subscribers_with_stalls,
       count(*) AS subscriptions,
       sum(t.stalls_under_good_tier) AS under_good_tier,
       sum(t.open_stalls) AS still_open_at_end
FROM track_summary t
JOIN meetings m ON m.id = t.meeting_id
GROUP BY t.meeting_id, t.publisher, t.track
HAVING stalls > 0
ORDER BY sum(t.stalled_ms) DESC, stalls DESC
LIMIT coalesce(:limit, 100);
