import CSQLite

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

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}
