import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// One participant's warm quality reports over time, for the charts: the
/// same reports and the same MOS rule the tier engine uses, so a chart never
/// shows a value the statistics did not count.
public struct QualitySeries: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var ts: Int64
        /// The MOS the tier engine used (SDK or E-model, per the config).
        public var mos: Double
        public var loss: Double
        public var rtt: Double
        public var jitter: Double
        public var bitrate: Double
        /// First warm report of a connection, or after a reporting gap: a
        /// chart starts a new line segment here instead of bridging.
        public var breaksLine: Bool
    }

    public var uid: String
    public var points: [Point]
    /// The SDK's own tier over time (`ClientLog.sdkTierHolds`), drawn under
    /// the recomputed one.
    public var sdkTiers: [TierHold]
    /// When the client reconnected (`reconnect` events), for markers.
    public var reconnects: [Int64]
    /// The intervals between consecutive points of one connection, in
    /// order (`SamplingNotice` weighs them against `gapMs`).
    public var intervals: [Int64] = []

    /// The warm reports of `client`: inside a connection, not in its cold
    /// start, `rtt != 0` (spec "Cold start"). Without `keepingPoints`,
    /// only `uid` and `intervals` (what `SamplingNotice` reads) are filled.
    public init(_ client: ClientLog, config: TierConfig, keepingPoints: Bool = true) {
        uid = client.uid
        points = []
        sdkTiers = keepingPoints ? client.sdkTierHolds() : []
        reconnects = keepingPoints ? client.events.filter { $0.payload.kind == .reconnect }.map(\.ts) : []
        let r = client.reports
        if keepingPoints { points.reserveCapacity(r.count) }
        for span in client.connectionSpans() {
            var previous: Int64?
            let warmFrom = TierParams.warmFrom(connectionStart: span.start, coldStartMs: config.coldStartMs)
            for i in span.reports where TierParams.isWarm(ts: r.ts[i], rtt: r.rtt[i], warmFrom: warmFrom) {
                if keepingPoints {
                    let mos = ReportMOS.mos(sdkMOS: r.mos[i], rtt: r.rtt[i], loss: r.loss[i], jitter: r.jitter[i],
                                            source: config.mos, emodel: config.emodel)
                    let breaks = previous.map { TierParams.isGap(from: $0, to: r.ts[i], gapMs: config.gapMs) } ?? true
                    points.append(Point(ts: r.ts[i], mos: mos, loss: r.loss[i], rtt: r.rtt[i], jitter: r.jitter[i],
                                        bitrate: r.bitrate[i], breaksLine: breaks))
                }
                if let previous { intervals.append(r.ts[i] - previous) }
                previous = r.ts[i]
            }
        }
    }
}
