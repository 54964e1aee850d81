import MQABase

/// One thing found wrong in a store: by `mqa check`, or by a lenient read
/// that left a chunk out of a report.
public struct StoreDamage: Equatable, Sendable, CustomStringConvertible {
    /// Where the damage is.
    public enum Place: Equatable, Sendable {
        /// The SQLite file itself: `integrity_check`, `foreign_key_check`,
        /// tables that cannot be read, a file that does not open.
        case file
        /// One chunk row (its id) that does not decode or does not match its row.
        case chunk(ChunkTable, id: Int64)
        /// A meeting's summary rows, which differ from the recomputed ones.
        case summary(SummaryTable)
    }

    /// The meeting concerned; empty for damage to the file.
    public var meeting: String
    /// The client concerned; empty when the damage is not one client's.
    public var uid: String
    public var place: Place
    public var reason: String

    public init(meeting: String = "", uid: String = "", place: Place, reason: String) {
        self.meeting = meeting
        self.uid = uid
        self.place = place
        self.reason = reason
    }

    /// The table the damage is in, as `mqa check` lists it (`sqlite` for the file).
    public var table: String {
        switch place {
        case .file: "sqlite"
        case .chunk(let table, _): table.rawValue
        case .summary(let table): table.rawValue
        }
    }

    /// The chunk row's id, for damage to a chunk.
    public var chunk: Int64? {
        if case .chunk(_, let id) = place { return id }
        return nil
    }

    public var description: String {
        switch place {
        case .file: "the SQLite file: \(reason)"
        case .chunk(let table, let id):
            "damaged \(table.itemName) chunk \(id) (\(table.rawValue)) of meeting \"\(meeting)\", client \"\(uid)\": \(reason)"
        case .summary(let table): "\(table.rawValue) of meeting \"\(meeting)\": \(reason)"
        }
    }
}

/// The tables of per-meeting summaries that ingest keeps for the named queries.
public enum SummaryTable: String, CaseIterable, Sendable {
    case meeting = "meeting_summary"
    case participant = "participant_summary"
    case track = "track_summary"
}
