import CSQLite
import MQABase
import MQAModel

/// A value that can be bound to a statement parameter.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
}

/// A prepared statement. Bind with `bind`, then either `run()` (no rows) or
/// `step()` in a loop and read columns while it returns `true`.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw database.error(rc, sql: sql) }
        handle = stmt
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// The first binding that failed since the last reset (a parameter
    /// index out of range, a value too big, no memory). The next `step()`
    /// throws it instead of running: a statement must never run with a
    /// parameter silently left NULL. Kept here rather than thrown by each
    /// `bind`, so that the store's many bind calls need no `try` each.
    private var bindError: DatabaseError?

    /// Resets the statement for another run and clears its bindings (and
    /// a failed binding's error with them).
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindError = nil
    }

    // MARK: Binding (indexes start at 1, as in SQLite)
    // Every sqlite3_bind_* result goes through `check`.

    private func check(_ rc: Int32, _ index: Int32) {
        guard rc != SQLITE_OK, bindError == nil else { return }
        let message = String(cString: sqlite3_errstr(rc))
        bindError = DatabaseError(code: rc, message: "binding parameter \(index): \(message)", sql: sql)
    }

    public func bind(_ index: Int32, _ value: Int64) { check(sqlite3_bind_int64(handle, index, value), index) }
    public func bind(_ index: Int32, _ value: Int) { check(sqlite3_bind_int64(handle, index, Int64(value)), index) }
    public func bind(_ index: Int32, _ value: Double) { check(sqlite3_bind_double(handle, index, value), index) }
    public func bindNull(_ index: Int32) { check(sqlite3_bind_null(handle, index), index) }

    public func bind(_ index: Int32, _ value: String?) {
        guard var text = value else { bindNull(index); return }
        text.withUTF8 { buffer in
            bindText(index, UnsafeRawBufferPointer(buffer))
        }
    }

    /// Binds UTF-8 bytes as TEXT (copied by SQLite).
    public func bindText(_ index: Int32, _ utf8: UnsafeRawBufferPointer) {
        // Above Int32.max bytes the length would wrap: refuse it as SQLite
        // refuses anything above its limit.
        guard utf8.count <= Int32.max else { check(SQLITE_TOOBIG, index); return }
        if let base = utf8.baseAddress, utf8.count > 0 {
            check(sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), mqa_sqlite_transient), index)
        } else {
            check(sqlite3_bind_text(handle, index, "", 0, mqa_sqlite_transient), index)
        }
    }

    public func bind(_ index: Int32, bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Int32.max else { check(SQLITE_TOOBIG, index); return }
        // A zero-length blob must still be a blob, not NULL: give SQLite a
        // valid pointer.
        if bytes.count == 0 {
            check(sqlite3_bind_zeroblob(handle, index, 0), index)
        } else {
            check(sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), mqa_sqlite_transient), index)
        }
    }

    public func bind(_ index: Int32, blob: [UInt8]) {
        blob.withUnsafeBytes { bind(index, bytes: $0) }
    }

    public func bind(_ index: Int32, _ value: SQLValue) {
        switch value {
        case .null: bindNull(index)
        case .int(let v): bind(index, v)
        case .double(let v): bind(index, v)
        case .text(let v): bind(index, v)
        case .blob(let v): bind(index, blob: v)
        }
    }

    /// Binds `value` to the named parameter (`:name`, `@name` or `$name`);
    /// returns false when the statement has no such parameter.
    @discardableResult
    public func bind(name: String, _ value: SQLValue) -> Bool {
        for prefix in [":", "@", "$"] {
            let index = sqlite3_bind_parameter_index(handle, prefix + name)
            if index > 0 { bind(index, value); return true }
        }
        return false
    }

    /// Names of the statement's parameters, without their prefix.
    public var parameterNames: [String] {
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else { return [] }
        return (1...count).compactMap { i in
            sqlite3_bind_parameter_name(handle, i).map { String(String(cString: $0).dropFirst()) }
        }
    }

    // MARK: Stepping

    /// Advances to the next row: `true` while there is one. Every failure,
    /// whatever its code, comes out as a thrown `DatabaseError`, a failed
    /// binding's first (the statement is then reset, bindings cleared).
    @discardableResult
    public func step() throws -> Bool {
        if let bindError {
            reset()
            throw bindError
        }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// The first row's first column as an integer, `nil` when there is no
    /// row; the statement is reset after, so it holds no snapshot.
    public func firstInt64() throws -> Int64? {
        defer { reset() }
        return try step() ? int64(0) : nil
    }

    /// Runs a statement that returns no rows (or whose rows are not wanted).
    public func run() throws {
        while try step() {}
    }

    // MARK: Columns (indexes start at 0, as in SQLite)

    public var columnCount: Int32 { sqlite3_column_count(handle) }
    public func columnName(_ i: Int32) -> String { String(cString: sqlite3_column_name(handle, i)) }
    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    public func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    public func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(handle, i)) }
    public func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }

    public func string(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, i) else { return nil }
        let n = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Calls `body` with the column's bytes, valid only during the call.
    public func withBlob<T>(_ i: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let p = sqlite3_column_blob(handle, i)
        let n = Int(sqlite3_column_bytes(handle, i))
        return try body(UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : n))
    }

    public func blob(_ i: Int32) -> [UInt8] { withBlob(i) { Array($0) } }

    /// The column as a generic value, for named queries whose shape is not
    /// known in advance.
    public func value(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: .int(int64(i))
        case SQLITE_FLOAT: .double(double(i))
        case SQLITE_TEXT: .text(string(i) ?? "")
        case SQLITE_BLOB: .blob(blob(i))
        default: .null
        }
    }
}
