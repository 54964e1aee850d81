import MQABase
import MQAModel

/// The value columns of a stored quality report, in the order the report
/// chunk codec holds them (`SeriesBlock.columns`). The codec only knows
/// positions; everything above it names a column by this enum.
public enum ReportColumn: Int, CaseIterable, Sendable {
    case loss, rtt, jitter, bitrate, mos

    /// The field's name in the event log, and the prefix of its statistics
    /// columns in `report_chunks` (`loss_min`, `loss_max`, `loss_sum`).
    public var name: String {
        switch self {
        case .loss: "loss"
        case .rtt: "rtt"
        case .jitter: "jitter"
        case .bitrate: "bitrate"
        case .mos: "mos"
        }
    }
}

extension SeriesBlock {
    /// One value column of a report chunk.
    public subscript(_ column: ReportColumn) -> [DecimalNumber] { columns[column.rawValue] }
}
