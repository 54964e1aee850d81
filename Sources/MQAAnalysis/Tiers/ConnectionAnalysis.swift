import MQABase
import MQAModel

/// An emitted tier change.
public struct TierChange: Sendable, Equatable {
    public var ts: Int64
    public var from: Tier
    public var to: Tier

    public init(ts: Int64, from: Tier, to: Tier) {
        self.ts = ts
        self.from = from
        self.to = to
    }

    /// A change between two known tiers (changes from or to `unknown` are not flaps).
    public var isFlap: Bool { from.isKnown && to.isKnown }
}

/// The recomputed tier timeline of one connection (`mqa tiers`).
public struct ConnectionAnalysis: Sendable, Equatable {
    public var uid: String
    /// 0-based among the client's connections.
    public var index: Int
    public var start: Int64
    public var end: Int64
    public var changes: [TierChange]
    /// Time per tier; the six values sum to `end - start`.
    public var tierMs: TierDurations
    public var flaps: Int
    public var warmReports: Int
    public var coldReports: Int
    /// The non-empty holds of known tiers, ascending.
    public var holds: [TierHold]

    /// `{"uid", "index", "start", "end", "changes", "tierMs", "flaps", "warmReports", "coldReports"}`.
    public var json: JSON {
        .object([
            ("uid", .string(uid)),
            ("index", .int(Int64(index))),
            ("start", .int(start)),
            ("end", .int(end)),
            ("changes", .array(changes.map {
                .object([("ts", .int($0.ts)), ("from", .string($0.from.name)), ("to", .string($0.to.name))])
            })),
            ("tierMs", tierMs.json),
            ("flaps", .int(Int64(flaps))),
            ("warmReports", .int(Int64(warmReports))),
            ("coldReports", .int(Int64(coldReports))),
        ])
    }
}

/// Records everything the machine reports for one connection.
struct RecordingSink: TierSink {
    var changes: [TierChange] = []
    var holds: [TierHold] = []
    var durations = TierDurations()
    /// Where the last hold ended: the time since then is `unknown`.
    var cursor: Int64
    var warmCount = 0
    var coldCount = 0

    init(start: Int64) { cursor = start }

    mutating func cold(report index: Int) { coldCount += 1 }

    mutating func warm(report index: Int, mos: Double) { warmCount += 1 }

    mutating func change(ts: Int64, from: Tier, to: Tier) {
        changes.append(TierChange(ts: ts, from: from, to: to))
    }

    mutating func hold(_ tier: Tier, from: Int64, to: Int64) {
        // Unknown is counted from the gaps between holds rather than as the
        // remainder, so that "the six totals sum to the connection's length"
        // is a real check of the interval bookkeeping.
        durations[.unknown] += from - cursor
        durations[tier] += to - from
        cursor = to
        guard to > from else { return }
        // The machine reports a hold per report interval; contiguous holds
        // of one tier are one hold (every use of holds is additive in time
        // or asks for the tier at an instant), so memory follows the tier
        // changes, not the reports.
        if let last = holds.last, last.tier == tier, last.to == from {
            holds[holds.count - 1].to = to
        } else {
            holds.append(TierHold(tier: tier, from: from, to: to))
        }
    }

    mutating func finish(end: Int64) { durations[.unknown] += end - cursor }

    /// The connection's public timeline, once `finish` has run.
    func analysis(uid: String, span: ConnectionSpan) -> ConnectionAnalysis {
        ConnectionAnalysis(
            uid: uid, index: span.index, start: span.start, end: span.end,
            changes: changes.fitted, tierMs: durations, flaps: changes.count { $0.isFlap },
            warmReports: warmCount, coldReports: coldCount, holds: holds.fitted)
    }
}

extension Array {
    /// The elements in a buffer of their own size when growth by doubling
    /// left more than an eighth of it empty. A meeting's analysis keeps
    /// every connection's changes and holds to the end: in a flappy
    /// 2,000-viewer hour the empty room was 12 MB of their 41.
    var fitted: [Element] {
        guard capacity - count > Swift.max(count / 8, 4) else { return self }
        return [Element](unsafeUninitializedCapacity: count) { buffer, n in
            n = withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
        }
    }
}
