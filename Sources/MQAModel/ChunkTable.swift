import MQABase

/// The two tables of compressed chunks. Each holds a client's items in time
/// order, one row per chunk with its `first_ts`, `last_ts` and `count`; the
/// merge-on-write, the readers and `mqa check` are shared and told apart by
/// this value, never by comparing table names.
public enum ChunkTable: String, CaseIterable, Sendable {
    /// Quality reports, as exact decimal columns (`ReportColumn`).
    case reports = "report_chunks"
    /// Every other event: kind number and canonical JSON payload.
    case events = "event_chunks"

    /// What one item of the table is called in messages.
    public var itemName: String {
        switch self {
        case .reports: "report"
        case .events: "event"
        }
    }
}
