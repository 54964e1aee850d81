-- Every rejected line: where it was, why, and its raw bytes (the first 4 KiB).
-- Parameters: none.
SELECT f.path AS file, r.line, t.reason, t.raw
FROM rejects r
JOIN files f ON f.id = r.file_id
JOIN reject_texts t ON t.id = r.text_id
ORDER BY r.file_id, r.line;
