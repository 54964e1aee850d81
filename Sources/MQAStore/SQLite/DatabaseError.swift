#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import MQABase
import MQAModel

/// A failed SQLite call: the result code, SQLite's message, the operating
/// system's error behind an I/O failure and, when a statement was
/// involved, its SQL, so a failure in a report names the query.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (`primaryCode` is its low byte).
    public let code: Int32
    public let message: String
    public let sql: String?
    /// `errno` of the system call that failed (0 when none did): tells a
    /// full disk (ENOSPC) from a file-size limit (EFBIG) behind an I/O error.
    public let systemErrno: Int32

    public init(code: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        // SQLite keeps the errno of its last failed system call, which
        // may be an old one: it speaks only for I/O failures.
        let primary = code & 0xff
        self.systemErrno = primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN ? systemErrno : 0
    }

    /// The primary result code (extended codes carry details in the high bits).
    public var primaryCode: Int32 { code & 0xff }

    /// The primary result codes mqa acts on, by name.
    public static let busy: Int32 = SQLITE_BUSY
    public static let ioError: Int32 = SQLITE_IOERR
    public static let corrupt: Int32 = SQLITE_CORRUPT
    public static let full: Int32 = SQLITE_FULL
    public static let cannotOpen: Int32 = SQLITE_CANTOPEN
    public static let readOnly: Int32 = SQLITE_READONLY
    public static let permission: Int32 = SQLITE_PERM
    public static let notADatabase: Int32 = SQLITE_NOTADB
    /// Extended: the database file was unlinked or replaced while open.
    public static let readOnlyMoved: Int32 = SQLITE_READONLY | (4 << 8)

    /// Extended: a write system call failed.
    public static let writeFailed: Int32 = SQLITE_IOERR | (3 << 8)

    /// The disk (or a quota, or a file-size limit) refused the write.
    public var isOutOfSpace: Bool {
        primaryCode == DatabaseError.full || systemErrno == ENOSPC || systemErrno == EDQUOT || isPastFileSizeLimit
    }

    /// A write failed while the process has a file-size limit (`ulimit -f`):
    /// EFBIG. SQLite reports the errno of its last system call, which after
    /// a failed WAL write is often another one's, so the limit itself tells.
    public var isPastFileSizeLimit: Bool {
        systemErrno == EFBIG || ((code == DatabaseError.writeFailed || primaryCode == DatabaseError.full) && DatabaseError.fileSizeLimit != nil)
    }

    /// The soft RLIMIT_FSIZE in bytes; nil when unlimited.
    public static var fileSizeLimit: UInt64? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// What the failure means for someone who ran mqa, when SQLite's own
    /// message is not enough to act on.
    public var hint: String? {
        if isPastFileSizeLimit {
            return "the file-size limit (ulimit -f) of \(DatabaseError.fileSizeLimit.map(String.init) ?? "?") bytes was reached"
        }
        if isOutOfSpace { return "the disk is full" }
        switch primaryCode {
        case DatabaseError.busy: return "another process held the store's write lock for the whole wait"
        case DatabaseError.ioError:
            return "the store could not be read or written; was it, or its -wal file, deleted, moved or changed by another program while mqa ran?"
        case DatabaseError.corrupt: return "the store is damaged (`mqa check` lists what)"
        case DatabaseError.cannotOpen: return "the store's file or its folder cannot be opened"
        case DatabaseError.notADatabase: return "the file is not an mqa store (not a SQLite database)"
        default: return nil
        }
    }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let hint { text += " — " + hint }
        if let statement = DatabaseError.excerpt(of: sql) { text += " (in: \(statement))" }
        return text
    }

    /// The first line of SQL that is not a comment, cut short: enough to
    /// tell which statement failed (a schema's leading comment said nothing).
    static func excerpt(of sql: String?) -> String? {
        guard let sql else { return nil }
        let line = sql.split(separator: "\n").lazy
            .map { $0.trimmingCharacters(in: " \t") }
            .first { !$0.isEmpty && !$0.hasPrefix("--") } ?? ""
        return line.count > 120 ? String(line.prefix(117)) + "…" : String(line)
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return s
    }
}
