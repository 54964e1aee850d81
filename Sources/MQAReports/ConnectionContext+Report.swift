import MQABase
import MQAStore

/// A dump connection's context as the ingest summary and the meeting
/// report both say it.
extension ConnectionContext {
    /// `cpu 34 s, bandwidth 12 s`: outgoing video's limits, the longest
    /// first; nil when it was never limited.
    var limitsText: String? {
        let parts = limitedMs.filter { $0.value > 0 }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return parts.isEmpty ? nil : parts.map { "\($0.key) \(ReportText.duration($0.value))" }.joined(separator: ", ")
    }

    /// The connection's JSON members: `connection`, `paths`, `limitedMs`
    /// (by reason, in `limitReasons` order) and `concealment`.
    var jsonFields: [(String, JSON)] {
        [
            ("connection", .string(connection)),
            ("paths", .array(paths.map { .string($0) })),
            ("limitedMs", .object(ConnectionContext.limitReasons.compactMap { k in limitedMs[k].map { (k, .int($0)) } })),
            ("concealment", JSON.rounded(concealment, places: JSON.Places.ratio)),
        ]
    }
}
