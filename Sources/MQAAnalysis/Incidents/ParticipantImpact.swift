import MQABase
import MQAModel

/// How much one participant suffered, for the verdict's ranking: the fleet
/// score's terms, per participant, so the participants' impacts add up to
/// the meeting's score.
public struct ParticipantImpact: Sendable, Equatable {
    public var uid: String
    /// Stalled time of the video this participant watched (as subscriber),
    /// summed over their subscriptions.
    public var stalledMs: Int64
    /// Rendered time of those subscriptions (first frame to end), summed:
    /// the denominator of `stalledShare`.
    public var watchedMs: Int64
    public var subscriptions: Int
    /// Distinct tracks among them (a track subscribed again after a pause
    /// or a drop is one tile, watched in two subscriptions).
    public var tiles: Int = 0
    /// Warm time at `poor`/`bad`; nil on a CDN meeting (no quality data).
    public var lowTierMs: Int64?
    public var disconnects: Int
    public var abnormalDisconnects: Int

    /// Stalled ms + poor/bad ms + 30 s per abnormal disconnect.
    public var impactMs: Int64 {
        stalledMs + (lowTierMs ?? 0) + IncidentFinder.msPerDisconnect * Int64(abnormalDisconnects)
    }

    /// The share of watched video that was frozen; nil when nothing rendered.
    public var stalledShare: Double? { watchedMs > 0 ? Double(stalledMs) / Double(watchedMs) : nil }

    /// Every participant, most affected first (ties by uid).
    public static func rank(_ analysis: MeetingAnalysis) -> [ParticipantImpact] {
        let bySubscriber = Dictionary(grouping: analysis.subscriptions, by: \.subscriber)
        return analysis.participants.map { p in
            let subs = bySubscriber[p.uid] ?? []
            return ParticipantImpact(
                uid: p.uid, stalledMs: subs.reduce(0) { $0 + $1.stalledMs },
                watchedMs: subs.reduce(0) { $0 + max(0, $1.endTs - ($1.firstFrameTs ?? $1.endTs)) },
                subscriptions: subs.count, tiles: Set(subs.map { [$0.publisher, $0.track] }).count,
                lowTierMs: analysis.isCDN ? nil : p.tierMs[.poor] + p.tierMs[.bad],
                disconnects: p.disconnects.count, abnormalDisconnects: p.disconnects.count { $0.error != nil })
        }.sorted { ($1.impactMs, $0.uid) < ($0.impactMs, $1.uid) }
    }

    public var json: JSON {
        .object([
            ("uid", .string(uid)), ("impactMs", .int(impactMs)), ("stalledMs", .int(stalledMs)),
            ("watchedMs", .int(watchedMs)), ("lowTierMs", .optional(lowTierMs)),
            ("disconnects", .int(Int64(disconnects))), ("abnormalDisconnects", .int(Int64(abnormalDisconnects))),
        ])
    }
}
