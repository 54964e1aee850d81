import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A failed SQLite call: the result code, SQLite's message and, when a
/// statement was involved, its SQL, so a failure in a report names the query.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var message: String
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (extended codes carry details in the high bits).
    public var primaryCode: Int32 { code & 0xff }

    /// What the code means for someone who ran mqa, when SQLite's own
    /// message is not enough to act on.
    public var hint: String? {
        // Past `ulimit -f` SQLite says "disk I/O error" (or "database or
        // disk is full" for a short write), which does not say why.
        if code == 778 || primaryCode == 13, let limit = DatabaseError.fileSizeLimit {
            return "the store cannot grow past the file-size limit (ulimit -f) of \(limit) bytes, or the disk is full"
        }
        return switch primaryCode {
        case 10: "the store could not be read or written; was it, or its -wal file, deleted, moved or changed by another program while mqa ran?"
        case 11: "the store is damaged (`mqa check` lists what)"
        case 13: "the disk is full"
        case 14: "the store's file or its folder cannot be opened"
        case 26: "the file is not an mqa store (not a SQLite database)"
        default: nil
        }
    }

    /// The process's file-size limit in bytes, nil when unlimited.
    static var fileSizeLimit: UInt64? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let hint { text += " — " + hint }
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}
