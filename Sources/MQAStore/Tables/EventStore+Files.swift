import Foundation
import MQABase
import MQAModel

/// Where an ingested input stands (`files.status`).
public enum FileStatus: String, Sendable {
    /// Interrupted: `linesDone` lines are stored; resumable.
    case partial
    /// Read whole.
    case done
    /// Read whole, but the file changed while it was read.
    case changed
    /// A partial ingest whose file no longer starts with what was stored.
    case superseded
}

/// One row of `files`.
package struct FileRecord {
    package var id: Int64
    package var hash: String?
    var path: String
    package var status: FileStatus
    package var linesDone: Int
    package var prefixHash: String?
    /// The counters so far (`files` and `skippedFiles` not included).
    package var summary: IngestSummary
}

/// The `files` and `rejects` tables: what was ingested, how far, and every
/// rejected line.
extension EventStore {
    static let fileColumns = "id, hash, path, status, lines_done, prefix_hash, lines, events, reports, rejected, duplicates, ignored"

    private func fileRecord(_ s: Statement) -> FileRecord {
        var summary = IngestSummary()
        summary.lines = s.int(6)
        summary.events = s.int(7)
        summary.reports = s.int(8)
        summary.rejected = s.int(9)
        summary.duplicates = s.int(10)
        summary.ignored = s.int(11)
        return FileRecord(
            id: s.int64(0), hash: FileKeys.digest(s, 1), path: s.string(2) ?? "",
            status: FileStatus(rawValue: s.string(3) ?? "") ?? .done, linesDone: s.int(4),
            prefixHash: FileKeys.digest(s, 5), summary: summary)
    }

    /// The newest record of the input at `path` that a new ingest of it must
    /// look at: a partial one to resume, or a finished one to compare with.
    package func latestFile(path: String) throws -> FileRecord? {
        let s = try db.cached(
            """
            SELECT \(EventStore.fileColumns) FROM files
            WHERE path_key = ? AND path = ? AND status != 'superseded' ORDER BY id DESC LIMIT 1
            """)
        s.bind(1, FileKeys.pathKey(path))
        s.bind(2, path)
        defer { s.reset() }
        return try s.step() ? fileRecord(s) : nil
    }

    /// The partial records of `path` (a killed run's), oldest first.
    package func partialFiles(path: String) throws -> [FileRecord] {
        let s = try db.cached(
            """
            SELECT \(EventStore.fileColumns) FROM files
            WHERE path_key = ? AND path = ? AND status = 'partial' ORDER BY id
            """)
        s.bind(1, FileKeys.pathKey(path))
        s.bind(2, path)
        defer { s.reset() }
        var out: [FileRecord] = []
        while try s.step() { out.append(fileRecord(s)) }
        return out
    }

    /// A finished record whose content has this `hash`, other than `except`.
    package func finishedFile(hash: String, except: Int64) throws -> Int64? {
        let s = try db.cached("SELECT id FROM files WHERE hash = ? AND id != ?")
        FileKeys.bind(s, 1, digest: hash)
        s.bind(2, except)
        defer { s.reset() }
        return try s.step() ? s.int64(0) : nil
    }

    /// A new `partial` record at line 0.
    package func insertFile(path: String, emptyDigest: String) throws -> Int64 {
        let insert = try db.cached(
            "INSERT INTO files (path, path_key, status, prefix_hash, ingested_at) VALUES (?, ?, 'partial', ?, ?)")
        insert.bind(1, path)
        insert.bind(2, FileKeys.pathKey(path))
        FileKeys.bind(insert, 3, digest: emptyDigest)
        insert.bind(4, Int64(Date().timeIntervalSince1970 * 1000))
        try insert.run()
        return db.lastInsertRowID
    }

    /// The lines stored of the file so far (-1 when its row is gone).
    package func linesDone(file: Int64) throws -> Int {
        let s = try db.cached("SELECT lines_done FROM files WHERE id = ?")
        s.bind(1, file)
        defer { s.reset() }
        return try s.step() ? s.int(0) : -1
    }

    /// Records a file's progress (inside the writer's transaction).
    package func updateFile(_ id: Int64, status: FileStatus, linesDone: Int, prefixHash: String?, hash: String? = nil, summary: IngestSummary) throws {
        let update = try db.cached(
            """
            UPDATE files SET status = ?, lines_done = ?, prefix_hash = ?, hash = coalesce(?, hash), lines = ?, events = ?,
              reports = ?, rejected = ?, duplicates = ?, ignored = ? WHERE id = ?
            """)
        update.bind(1, status.rawValue)
        update.bind(2, Int64(linesDone))
        FileKeys.bind(update, 3, digest: prefixHash)
        FileKeys.bind(update, 4, digest: hash)
        update.bind(5, summary.lines)
        update.bind(6, summary.events)
        update.bind(7, summary.reports)
        update.bind(8, summary.rejected)
        update.bind(9, summary.duplicates)
        update.bind(10, summary.ignored)
        update.bind(11, id)
        try update.run()
    }

    package func setFileStatus(_ id: Int64, _ status: FileStatus) throws {
        let update = try db.cached("UPDATE files SET status = ? WHERE id = ?")
        update.bind(1, status.rawValue)
        update.bind(2, id)
        try update.run()
    }

    /// Removes a file's record and its rejects: its content had been
    /// ingested before under another record, so this run added nothing.
    package func forgetFile(_ id: Int64) throws {
        let rejects = try db.cached("DELETE FROM rejects WHERE file_id = ?")
        rejects.bind(1, id)
        try rejects.run()
        let file = try db.cached("DELETE FROM files WHERE id = ?")
        file.bind(1, id)
        try file.run()
    }

    /// The text row for (`reason`, `raw`), created when new; `size` is the
    /// line's full length. Without `keepRaw` the row is the reason and size
    /// alone, shared by every line that has both and no raw bytes kept.
    package func rejectText(reason: String, raw: UnsafeRawBufferPointer, size: Int, keepRaw: Bool) throws -> (id: Int64, new: Bool) {
        let key = RawlessRejectKey(reason: reason, size: size)
        if !keepRaw, let id = rawlessRejectTexts[key] { return (id, false) }
        let hasher = SHA256()
        if keepRaw {
            hasher.update(Array(reason.utf8))
            var zero: UInt8 = 0
            withUnsafeBytes(of: &zero) { hasher.update($0) }
            hasher.update(raw)
        } else {
            // Past an input's raw budget, a row per distinct line was a
            // random insert into the hash index each: 2M bad lines took 42 s
            // and made a 323 MB store. The tag keeps these keys apart from
            // the full ones, whose hashed bytes start with a reason mqa
            // wrote, and the lengths keep reason and size apart.
            hasher.update(EventStore.rawlessRejectTag)
            for n in [reason.utf8.count, size] { withUnsafeBytes(of: UInt64(n).littleEndian) { hasher.update($0) } }
            hasher.update(Array(reason.utf8))
        }
        let digest = hasher.snapshot()
        let find = try db.cached("SELECT id FROM reject_texts WHERE hash = ?")
        find.bind(1, blob: digest)
        var found: Int64?
        if try find.step() { found = find.int64(0) }
        find.reset()
        let text: (id: Int64, new: Bool)
        if let found {
            text = (found, false)
        } else {
            let insert = try db.cached("INSERT INTO reject_texts (hash, reason, size, raw) VALUES (?, ?, ?, ?)")
            insert.bind(1, blob: digest)
            insert.bind(2, reason)
            insert.bind(3, size)
            if keepRaw { insert.bind(4, blob: Array(raw)) } else { insert.bindNull(4) }
            try insert.run()
            text = (db.lastInsertRowID, true)
        }
        if !keepRaw {
            if rawlessRejectTexts.count >= 4096 { rawlessRejectTexts.removeAll(keepingCapacity: true) }
            rawlessRejectTexts[key] = text.id
        }
        return text
    }

    /// A reject text kept without raw bytes: its reason and the line's size.
    struct RawlessRejectKey: Hashable {
        var reason: String
        var size: Int
    }

    /// What a reject text kept without its raw bytes is hashed after.
    static let rawlessRejectTag = Array("mqa: a rejected line's reason and size, no raw bytes\u{0}".utf8)

    /// Each stored reject of `file` as (line, reason), in line order. Read
    /// a page at a time, no statement open while `body` runs (it may use
    /// the store).
    package func forEachReject(file: Int64, _ body: (Int, String) throws -> Void) throws {
        var after = -1
        while true {
            let select = try db.cached(
                """
                SELECT r.line, t.reason FROM rejects r JOIN reject_texts t ON t.id = r.text_id
                WHERE r.file_id = ? AND r.line > ? ORDER BY r.line LIMIT 512
                """)
            select.bind(1, file)
            select.bind(2, after)
            var page: [(Int, String)] = []
            while try select.step() { page.append((select.int(0), select.string(1) ?? "")) }
            select.reset()
            guard let last = page.last else { return }
            after = last.0
            for (line, reason) in page { try body(line, reason) }
        }
    }

    package func insertReject(file: Int64, line: Int, text: Int64) throws {
        let insert = try db.cached("INSERT OR IGNORE INTO rejects (file_id, line, text_id) VALUES (?, ?, ?)")
        insert.bind(1, file)
        insert.bind(2, line)
        insert.bind(3, text)
        try insert.run()
    }
}
