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
    /// only `uid` and `intervals` (what `SamplingNotice` reads) are filled,
    /// and `intervals` only for a participant who may sample seldom
    /// (`SamplingNotice.maySampleSeldom`): the rest are counted, not kept,
    /// as a client of 4M reports held 32 MB of them for nothing.
    public init(_ client: ClientLog, config: TierConfig, keepingPoints: Bool = true) {
        uid = client.uid
        points = []
        sdkTiers = keepingPoints ? client.sdkTierHolds() : []
        reconnects = keepingPoints ? client.events.filter { $0.payload.kind == .reconnect }.map(\.ts) : []
        let r = client.reports
        let spans = client.connectionSpans()
        var keepingIntervals = keepingPoints
        if !keepingPoints {
            var all = 0, gaps = 0
            QualitySeries.forEachWarm(r, spans, config) { i, previous in
                guard let previous else { return }
                all += 1
                if r.ts[i] - previous > config.gapMs { gaps += 1 }
            }
            keepingIntervals = SamplingNotice.maySampleSeldom(intervals: all, gaps: gaps)
            guard keepingIntervals else { return }
        }
        var points: [Point] = [], intervals: [Int64] = []
        if keepingPoints { points.reserveCapacity(r.count) }
        QualitySeries.forEachWarm(r, spans, config) { i, previous in
            if keepingPoints {
                let mos = ReportMOS.mos(sdkMOS: r.mos[i], rtt: r.rtt[i], loss: r.loss[i], jitter: r.jitter[i],
                                        source: config.mos, emodel: config.emodel)
                let breaks = previous.map { TierParams.isGap(from: $0, to: r.ts[i], gapMs: config.gapMs) } ?? true
                points.append(Point(ts: r.ts[i], mos: mos, loss: r.loss[i], rtt: r.rtt[i], jitter: r.jitter[i],
                                    bitrate: r.bitrate[i], breaksLine: breaks))
            }
            if let previous, keepingIntervals { intervals.append(r.ts[i] - previous) }
        }
        self.points = points
        self.intervals = intervals
    }

    /// Calls `body` with each warm report's position, in time order, and
    /// the time of the warm report before it in its connection (nil for a
    /// connection's first).
    private static func forEachWarm(_ r: ReportColumns, _ spans: [ConnectionSpan], _ config: TierConfig,
                                    _ body: (Int, Int64?) -> Void) {
        for span in spans {
            var previous: Int64?
            let warmFrom = TierParams.warmFrom(connectionStart: span.start, coldStartMs: config.coldStartMs)
            for i in span.reports where TierParams.isWarm(ts: r.ts[i], rtt: r.rtt[i], warmFrom: warmFrom) {
                body(i, previous)
                previous = r.ts[i]
            }
        }
    }
}
