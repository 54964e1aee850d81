-- Video stalls per published track: how many, how long, how many subscribers saw them, and how many began under a good or excellent tier.
-- Parameters: none. Reads the summaries ingest keeps (default tier config).
SELECT m.meeting,
       st.publisher,
       st.track,
       count(*) AS stalls,
       sum(st.end_ts - st.start_ts) / 1000 AS stalled_s,
       count(DISTINCT st.subscriber) AS subscribers,
       sum(st.tier IN ('excellent', 'good')) AS under_good_tier,
       sum(st.open) AS still_open_at_end
FROM stall_summary st
JOIN meetings m ON m.id = st.meeting_id
GROUP BY st.meeting_id, st.publisher, st.track
ORDER BY stalled_s DESC, stalls DESC
LIMIT 100;
