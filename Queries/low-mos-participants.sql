-- Participants whose mean MOS over warm reports is below 3.5 (the low_mos issue), worst first, with what drove it.
-- Parameters: none. Reads the summaries ingest keeps (default tier config).
SELECT m.meeting,
       p.uid,
       p.warm_reports,
       round(p.mos_mean, 2) AS mos_mean,
       -- Percentiles are one report's value: exact, but for an E-model MOS
       -- (rounded to 0.0001, as the reports do).
       round(p.mos_p5, 4) AS mos_p5,
       p.loss_p95 AS loss_pct_p95,
       p.rtt_p95 AS rtt_ms_p95,
       p.jitter_p95 AS jitter_ms_p95,
       p.poor_ms + p.bad_ms AS low_tier_ms,
       p.disconnects
FROM participant_summary p
JOIN meetings m ON m.id = p.meeting_id
WHERE p.mos_mean < 3.5
ORDER BY p.mos_mean, m.meeting, p.uid;
