/// The SQL files of this folder, compiled into the binary so that `mqa` needs
/// no resource bundle at run time. Each `.sql` file is readable as it is in
/// the `sqlite3` shell; `mqa query NAME` runs the file `NAME.sql`.
public enum Queries {
    /// The store schema, idempotent (`CREATE ... IF NOT EXISTS`).
    public static var schema: String { text(PackageResources.schema_sql) }

    /// Named queries by name (file name without `.sql`), schema excluded.
    public static var named: [(name: String, sql: String)] {
        [
            ("worst-meetings", text(PackageResources.worst_meetings_sql)),
            ("low-mos-participants", text(PackageResources.low_mos_participants_sql)),
            ("stalls-by-track", text(PackageResources.stalls_by_track_sql)),
            ("tracks", text(PackageResources.tracks_sql)),
            ("meetings", text(PackageResources.meetings_sql)),
            ("rejects", text(PackageResources.rejects_sql)),
            ("storage", text(PackageResources.storage_sql)),
        ]
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
