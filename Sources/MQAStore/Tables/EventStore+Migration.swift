import MQABase
import MQAModel

/// Upgrading stores made by older versions of mqa, in place.
extension EventStore {
    /// The schema version this build writes (`PRAGMA user_version`).
    static let schemaVersion = 3

    func schemaVersion() throws -> Int {
        let s = try db.prepare("PRAGMA user_version")
        return try s.step() ? s.int(0) : 0
    }

    /// Brings an older store to the current version, a step per version,
    /// each in one transaction. A new or current store is left alone.
    func migrate() throws {
        guard try schemaVersion() < EventStore.schemaVersion else { return }
        try migrateFromVersion1()
        try migrateFromVersion2()
    }

    /// Version 1 to 2: `files` gains the prefix hash and two statuses, and
    /// rejected lines move to `reject_texts` (each distinct text once, raw
    /// bytes as a BLOB) plus one small `rejects` row per line.
    private func migrateFromVersion1() throws {
        guard try hasVersion1Tables() else { return }
        try db.execute("PRAGMA foreign_keys=OFF")
        defer { try? db.execute("PRAGMA foreign_keys=ON") }
        try db.transaction {
            // Another process may have upgraded it while we waited for the lock.
            guard try schemaVersion() < EventStore.schemaVersion, try hasVersion1Tables() else { return }
            try db.execute(
                """
                CREATE TABLE files_v2 (
                    id INTEGER PRIMARY KEY, hash TEXT UNIQUE, path TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('partial', 'done', 'changed', 'superseded')),
                    lines_done INTEGER NOT NULL DEFAULT 0, prefix_hash TEXT,
                    lines INTEGER NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0,
                    reports INTEGER NOT NULL DEFAULT 0, rejected INTEGER NOT NULL DEFAULT 0,
                    duplicates INTEGER NOT NULL DEFAULT 0, ignored INTEGER NOT NULL DEFAULT 0,
                    ingested_at INTEGER NOT NULL);
                INSERT INTO files_v2 (id, hash, path, status, lines_done, lines, events, reports, rejected, duplicates, ignored, ingested_at)
                  SELECT id, hash, path, status, lines_done, lines, events, reports, rejected, duplicates, ignored, ingested_at FROM files;
                CREATE TABLE IF NOT EXISTS reject_texts (
                    id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, reason TEXT NOT NULL, size INTEGER NOT NULL, raw BLOB);
                CREATE TABLE rejects_v2 (
                    file_id INTEGER NOT NULL REFERENCES files(id), line INTEGER NOT NULL,
                    text_id INTEGER NOT NULL REFERENCES reject_texts(id), PRIMARY KEY (file_id, line)) WITHOUT ROWID;
                """)
            // Rejects whose file row was dropped (identical stdin content)
            // get a finished row of their own, so that none is lost.
            let old = try db.prepare("SELECT file_id, file, line, reason, raw FROM rejects ORDER BY id")
            var orphans: [String: Int64] = [:]
            let insertOrphan = try db.prepare(
                "INSERT INTO files_v2 (path, status, lines_done, ingested_at) VALUES (?, 'done', -1, 0)")
            let insert = try db.prepare("INSERT OR IGNORE INTO rejects_v2 (file_id, line, text_id) VALUES (?, ?, ?)")
            while try old.step() {
                var file = old.int64(0)
                let path = old.string(1) ?? ""
                if old.isNull(0) {
                    if let id = orphans[path] {
                        file = id
                    } else {
                        insertOrphan.reset()
                        insertOrphan.bind(1, path)
                        try insertOrphan.run()
                        file = db.lastInsertRowID
                        orphans[path] = file
                    }
                }
                let raw = Array((old.string(4) ?? "").utf8)
                let text = try raw.withUnsafeBytes {
                    try rejectText(reason: old.string(3) ?? "", raw: $0, size: $0.count, keepRaw: true)
                }
                insert.reset()
                insert.bind(1, file)
                insert.bind(2, old.int(2))
                insert.bind(3, text.id)
                try insert.run()
            }
            old.reset()
            try db.execute(
                """
                DROP TABLE rejects;
                DROP TABLE files;
                ALTER TABLE files_v2 RENAME TO files;
                ALTER TABLE rejects_v2 RENAME TO rejects;
                """)
        }
    }

    /// Version 2 to 3: `files` keeps SHA-256 digests as 32-byte BLOBs, not
    /// as `sha256:<hex>` text, and is looked up by `path_key` instead of an
    /// index over whole paths (`FileKeys`). Ids and every other column stay.
    private func migrateFromVersion2() throws {
        guard try hasVersion2Files() else { return }
        try db.execute("PRAGMA foreign_keys=OFF")
        defer { try? db.execute("PRAGMA foreign_keys=ON") }
        try db.transaction {
            guard try hasVersion2Files() else { return }
            try db.execute(
                """
                CREATE TABLE files_v3 (
                    id INTEGER PRIMARY KEY, hash BLOB UNIQUE, path TEXT NOT NULL, path_key INTEGER NOT NULL,
                    status TEXT NOT NULL
                      CHECK (status = 'partial' OR status = 'done' OR status = 'changed' OR status = 'superseded'),
                    lines_done INTEGER NOT NULL DEFAULT 0, prefix_hash BLOB,
                    lines INTEGER NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0,
                    reports INTEGER NOT NULL DEFAULT 0, rejected INTEGER NOT NULL DEFAULT 0,
                    duplicates INTEGER NOT NULL DEFAULT 0, ignored INTEGER NOT NULL DEFAULT 0,
                    ingested_at INTEGER NOT NULL)
                """)
            let old = try db.prepare(
                """
                SELECT id, hash, path, status, lines_done, prefix_hash, lines, events, reports, rejected,
                  duplicates, ignored, ingested_at FROM files ORDER BY id
                """)
            let insert = try db.prepare(
                """
                INSERT INTO files_v3 (id, hash, path, path_key, status, lines_done, prefix_hash, lines, events,
                  reports, rejected, duplicates, ignored, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            while try old.step() {
                insert.reset()
                let path = old.string(2) ?? ""
                insert.bind(1, old.int64(0))
                FileKeys.bind(insert, 2, digest: old.string(1))
                insert.bind(3, path)
                insert.bind(4, FileKeys.pathKey(path))
                insert.bind(5, old.string(3))
                insert.bind(6, old.int64(4))
                FileKeys.bind(insert, 7, digest: old.string(5))
                for column in Int32(6)...12 { insert.bind(column + 2, old.int64(column)) }
                try insert.run()
            }
            old.reset()
            try db.execute(
                """
                DROP TABLE files;
                ALTER TABLE files_v3 RENAME TO files;
                CREATE INDEX files_by_path ON files (path_key);
                """)
        }
    }

    /// Whether the store has version 2's `files` table (no path key).
    private func hasVersion2Files() throws -> Bool { try filesTableLacks("path_key") }

    /// Whether the store has version 1's `files` table (no prefix hash).
    private func hasVersion1Tables() throws -> Bool { try filesTableLacks("prefix_hash") }

    /// Whether a `files` table exists without `column`: the column a
    /// version added tells a store of the version before it.
    private func filesTableLacks(_ column: String) throws -> Bool {
        let s = try db.prepare(
            """
            SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'files'),
                   (SELECT count(*) FROM pragma_table_info('files') WHERE name = ?)
            """)
        s.bind(1, column)
        guard try s.step() else { return false }
        return s.int(0) == 1 && s.int(1) == 0
    }
}
