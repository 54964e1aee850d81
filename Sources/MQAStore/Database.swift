import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection. Not thread-safe: use one per thread.
///
/// Statements are prepared once and cached by their SQL text, because the
/// ingest loop runs the same few statements millions of times.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var cache: [String: Statement] = [:]

    /// Opens (creating when `create`) the database at `path`, in WAL mode with
    /// a busy timeout so that concurrent writers wait instead of failing.
    public init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        var db: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(code: rc, message: "\(message): \(path)")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 60_000)
        if !readOnly {
            // Switching to WAL needs an exclusive lock, and SQLite does not
            // always call the busy handler for it: two processes creating a
            // store at once would fail. Retry for up to the busy timeout.
            try retryingWhenBusy { try execute("PRAGMA journal_mode=WAL") }
            // NORMAL is durable against process crashes in WAL mode; only an
            // OS crash can lose the last commits, never consistency.
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw DatabaseError(code: rc, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reset and with its bindings cleared,
    /// from the cache when it was prepared before.
    public func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// A fresh statement, not cached: for SQL run once, like a named query.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs `body` again while SQLite answers SQLITE_BUSY, for up to a
    /// minute. SQLite skips the busy handler in some lock races (a journal
    /// mode switch, a writer that just started in another process), and a
    /// second ingest must wait for the first, not fail.
    public func retryingWhenBusy<T>(_ body: () throws -> T) throws -> T {
        var attempts = 0
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.primaryCode == SQLITE_BUSY && attempts < 600 {
                attempts += 1
                usleep(100_000)
            }
        }
    }

    /// Starts a write transaction, waiting for other writers.
    public func beginImmediate() throws {
        try retryingWhenBusy { try execute("BEGIN IMMEDIATE") }
    }

    /// Commits the open transaction. Every cached statement is reset first:
    /// one left on a row after its last use keeps a read snapshot open, and
    /// while any snapshot is open the WAL can never be reset, so a long
    /// ingest grew the WAL (and memory) without bound.
    public func commit() throws {
        for statement in cache.values { statement.reset() }
        try execute("COMMIT")
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back
    /// when it throws. `IMMEDIATE` takes the write lock up front, so that two
    /// writers queue on the busy timeout instead of deadlocking on upgrade.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try beginImmediate()
        do {
            let result = try body()
            try commit()
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Bytes SQLite holds now and at its peak, process-wide (for memory
    /// diagnostics).
    public static var sqliteMemory: (current: Int64, peak: Int64) {
        (sqlite3_memory_used(), sqlite3_memory_highwater(0))
    }

    /// Row id of the last INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    func error(_ code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
