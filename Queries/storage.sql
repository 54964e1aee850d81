-- Where the store's bytes go: rows and compressed bytes per chunk table, and bytes per stored item.
-- Parameters: none.
SELECT 'report_chunks' AS "table", count(*) AS chunks, sum(count) AS items, sum(length(data)) AS bytes,
       round(sum(length(data)) * 1.0 / max(sum(count), 1), 2) AS bytes_per_item
FROM report_chunks
UNION ALL
SELECT 'event_chunks', count(*), sum(count), sum(length(data)),
       round(sum(length(data)) * 1.0 / max(sum(count), 1), 2)
FROM event_chunks;
