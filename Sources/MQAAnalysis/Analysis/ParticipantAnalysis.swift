import MQABase
import MQAModel

/// A `disconnect` event as the report lists it.
public struct Disconnect: Sendable, Equatable {
    public var ts: Int64
    public var reason: String
    /// Present when the disconnect was abnormal.
    public var error: String?

    public init(ts: Int64, reason: String, error: String?) {
        self.ts = ts
        self.reason = reason
        self.error = error
    }
}

/// One participant (client) of a meeting report.
public struct ParticipantAnalysis: Sendable, Equatable {
    public var uid: String
    public var connections: Int
    public var warmReports: Int
    public var coldReports: Int
    /// Over warm reports, using the MOS the engine used; `nil` with no warm
    /// report and for every participant of a CDN meeting (as for the others).
    public var mos: Distribution?
    public var lossPct: Distribution?
    public var rttMs: Distribution?
    public var jitterMs: Distribution?
    public var bitrateKbps: Distribution?
    /// Summed over the participant's connections.
    public var tierMs: TierDurations
    /// Every emitted change, to or from `unknown` included.
    public var tierChanges: Int
    public var flaps: Int
    public var sdkAgreement: TierAgreement
    /// `nil` when there is no warm time with a known SDK tier, and in a CDN meeting.
    public var sdkTierAgreement: Double?
    public var disconnects: [Disconnect]
    /// Number of `reconnect` events.
    public var reconnects: Int
    /// Stretches of a connection with no quality report for longer than
    /// `FeedSilence.longerThanMs` (the app in the background, or suspended):
    /// the participant's stream status then says nothing of what it saw.
    /// Empty in a CDN meeting (no feed), and for a feed whose pauses are
    /// the rule rather than the exception (more than half of its gaps
    /// between reports).
    public var silences: [FeedSilence] = []
    /// When the first `reconnect` was logged (the `reconnects` issue's `ts`).
    public var firstReconnectTs: Int64? = nil

    /// The participant object of `mqa report meeting --format json`.
    public var json: JSON {
        .object([
            ("uid", .string(uid)),
            ("connections", .int(Int64(connections))),
            ("reports", .object([("warm", .int(Int64(warmReports))), ("cold", .int(Int64(coldReports)))])),
            ("mos", mos?.json(["p5", "p50", "p95"], places: JSON.Places.mos, valuePlaces: JSON.Places.mosValue) ?? .null),
            ("lossPct", lossPct?.json(["p95"], places: JSON.Places.percent) ?? .null),
            ("rttMs", rttMs?.json(["p95"], places: JSON.Places.ms) ?? .null),
            ("jitterMs", jitterMs?.json(["p95"], places: JSON.Places.ms) ?? .null),
            ("bitrateKbps", bitrateKbps?.json(["p5"], places: JSON.Places.kbps) ?? .null),
            ("tierMs", tierMs.json),
            ("tierChanges", .int(Int64(tierChanges))),
            ("flaps", .int(Int64(flaps))),
            ("sdkTierAgreement", .rounded(sdkTierAgreement, places: JSON.Places.ratio)),
            ("disconnects", .array(disconnects.map {
                .object([("ts", .int($0.ts)), ("reason", .string($0.reason)), ("error", .optional($0.error))])
            })),
            ("reconnects", .int(Int64(reconnects))),
        ])
    }
}

extension Subscription {
    /// The track object of `mqa report meeting --format json`.
    public var json: JSON {
        .object([
            ("subscriber", .string(subscriber)),
            ("publisher", .string(publisher)),
            ("track", .string(track)),
            ("kind", .optional(kind)),
            ("subscribeTs", .int(subscribeTs)),
            ("endTs", .int(endTs)),
            ("firstFrameTs", .optional(firstFrameTs)),
            ("timeToFirstFrameMs", .optional(timeToFirstFrameMs)),
            ("stalls", .array(stalls.map {
                .object([
                    ("start", .int($0.start)), ("end", .int($0.end)),
                    ("open", .bool($0.open)), ("tier", .string($0.tier.name)),
                ])
            })),
            ("stallCount", .int(Int64(stallCount))),
            ("stalledMs", .int(stalledMs)),
            ("stallRatio", .rounded(stallRatio, places: JSON.Places.ratio)),
            ("stallsUnderGoodTier", .int(Int64(stallsUnderGoodTier))),
        ])
    }

    /// Stalls that began while the subscriber's tier was `excellent` or
    /// `good`: the stalls the tier did not see.
    public var stallsUnderGoodTier: Int {
        stalls.count { $0.tier == .excellent || $0.tier == .good }
    }
}
