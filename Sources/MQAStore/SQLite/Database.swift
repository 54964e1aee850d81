import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel

/// One SQLite connection. Not thread-safe: use one per thread.
///
/// Statements are prepared once and cached by their SQL text, because the
/// ingest loop runs the same few statements millions of times.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var cache: [String: Statement] = [:]

    /// How a connection may touch the file.
    public enum Access: Sendable {
        /// Read and write, creating the file when missing; WAL mode.
        case readWrite
        /// Read only: nothing is written, not even the journal mode.
        case readOnly
        /// Read only, and SQLite assumes nobody changes the file meanwhile:
        /// for a WAL store in a folder this user cannot write, where even a
        /// reader cannot create the shared-memory file it needs.
        case immutable
    }

    /// Opens (creating when `create`) the database at `path`, in WAL mode with
    /// a busy timeout so that concurrent writers wait instead of failing.
    public convenience init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        try self.init(path: path, access: readOnly ? .readOnly : .readWrite, create: create)
    }

    /// Opens the database at `path`. The path is always a file path, never
    /// a SQLite URI: a name starting with `file:` is opened as the relative
    /// file `./file:…`, so that `file:x?mode=memory` cannot silently store
    /// nothing.
    ///
    /// `pageSize` applies only to a database created here: SQLite fixes the
    /// page size when the first page is written (switching to WAL writes it).
    public init(path: String, access: Access, create: Bool = true, pageSize: Int? = nil) throws {
        var db: OpaquePointer?
        var flags: Int32
        var name = path.hasPrefix("file:") ? "./" + path : path
        switch access {
        case .readWrite:
            flags = SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        case .readOnly:
            flags = SQLITE_OPEN_READONLY
        case .immutable:
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:" + Database.uriEscaped(Database.joinedToWorkingDirectory(path)) + "?immutable=1"
        }
        flags |= SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(code: rc, message: "\(message): \(path)")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 60_000)
        if access == .readWrite {
            if let pageSize { try execute("PRAGMA page_size=\(pageSize)") }
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

    /// `path` as SQLite's URI needs it, absolute: the working directory and
    /// the name, joined and nothing else. Unlike `FilePaths.absolute`,
    /// which settles `..` by text, this keeps every component, so a `..`
    /// after a symbolic link goes where the kernel takes it and the store
    /// opened is the one the user named.
    static func joinedToWorkingDirectory(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cwd.hasSuffix("/") ? cwd : cwd + "/") + path
    }

    /// `path` with the characters a URI gives meaning to percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7F...:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            default:
                out.append(Character(Unicode.Scalar(byte)))
            }
        }
        return out
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
            throw DatabaseError(code: rc, message: message, sql: sql, systemErrno: sqlite3_system_errno(handle))
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

    /// Whether no transaction is open.
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Runs `body` with another busy timeout (0: fail at once when the
    /// store is locked), then restores the usual minute.
    public func withBusyTimeout<T>(milliseconds: Int32, _ body: () throws -> T) rethrows -> T {
        sqlite3_busy_timeout(handle, milliseconds)
        defer { sqlite3_busy_timeout(handle, 60_000) }
        return try body()
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
        DatabaseError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, systemErrno: sqlite3_system_errno(handle))
    }
}
