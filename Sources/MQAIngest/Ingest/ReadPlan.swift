import MQAStore

/// What the parsing thread does before it parses an input, decided from
/// the path's newest `files` record.
enum ReadPlan: Equatable {
    /// Parse from line 1.
    case fresh
    /// Lines through `after` are stored: check that the content through
    /// that line still has digest `prefix`, then parse the rest.
    case resume(after: Int, prefix: String)
    /// The path's newest record is finished with content `digest`: read
    /// and hash only; the same content is skipped, other content parsed.
    case compare(digest: String)

    /// The plan for an input, and what to do with the records first.
    struct Decision {
        var plan: ReadPlan
        /// The partial record being resumed: its id, lines and counters carry on.
        var resuming: FileRecord?
        /// A record that no longer counts (an older mqa's partial row, with
        /// no prefix digest to check it by).
        var superseding: FileRecord?
        /// Whether the input needs a new record now (a compared one gets
        /// its record only if its content turns out to be new).
        var needsRecord: Bool
    }

    /// Resume a partial record with a prefix digest, compare with a
    /// finished one, and read anything else afresh under a new record.
    static func decide(_ record: FileRecord?) -> Decision {
        switch record {
        case let r? where r.status == .partial && r.prefixHash != nil:
            Decision(plan: .resume(after: r.linesDone, prefix: r.prefixHash!), resuming: r, superseding: nil, needsRecord: false)
        case let r? where r.status != .partial && r.hash != nil:
            Decision(plan: .compare(digest: r.hash!), resuming: nil, superseding: nil, needsRecord: false)
        case let r?:
            Decision(plan: .fresh, resuming: nil, superseding: r, needsRecord: true)
        case nil:
            Decision(plan: .fresh, resuming: nil, superseding: nil, needsRecord: true)
        }
    }
}
