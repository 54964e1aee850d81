/// The SQL files of this folder, compiled into the binary so that `mqa` needs
/// no resource bundle at run time. Each `.sql` file is readable as it is in
/// the `sqlite3` shell; `mqa query NAME` runs the file `NAME.sql`.
public enum Queries {
    /// The store schema, idempotent (`CREATE ... IF NOT EXISTS`).
    public static var schema: String { text(PackageResources.schema_sql) }

    /// Named queries by name (file name without `.sql`), schema excluded.
    public static var named: [(name: String, sql: String)] {
        [
            ("rejects", text(PackageResources.rejects_sql)),
        ]
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
