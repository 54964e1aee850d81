-- Every rejected line: where it was, why, and the raw text (cut to 4 KiB).
-- Parameters: none.
SELECT file, line, reason, raw
FROM rejects
ORDER BY id;
