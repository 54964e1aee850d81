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
    /// as by `init(intervalsOf:_:config:)`.
    public init(_ client: ClientLog, config: TierConfig, keepingPoints: Bool = true) {
        let reports = ConnectedReports(client)
        // Reports held in memory are read without any failure.
        self = keepingPoints
            ? try! QualitySeries(client, reports: reports, config: config)
            : try! QualitySeries(intervalsOf: client.uid, reports, config: config)
    }

    /// The series of `client` whose reports `reports` walks (a stored
    /// series read chunk by chunk: only the points are held). Throws what
    /// reading the reports throws.
    ///
    /// `bucketing` (a chart's time range): a series of more points than a
    /// chart draws (`SVGCharts.maxPoints`) keeps only the chart's bucket
    /// entries, each with every metric's worst value
    /// (`SVGCharts.PointBuckets`), and no `intervals`: the chart drawn is
    /// the same, and a client of 4M reports held 224 MB of points for a
    /// chart of 420. Its scales come from the reports (`ChartScales.Figures`).
    public init(_ client: ClientLog, reports: ConnectedReports, config: TierConfig,
                bucketing range: (start: Int64, end: Int64)? = nil) throws {
        uid = client.uid
        sdkTiers = client.sdkTierHolds(spans: reports.spans)
        reconnects = client.events.filter { $0.payload.kind == .reconnect }.map(\.ts)
        var points: [Point] = [], intervals: [Int64] = []
        var buckets: SVGCharts.PointBuckets?
        points.reserveCapacity(range == nil ? reports.reportCount : SVGCharts.maxPoints + 1)
        try QualitySeries.forEachWarm(reports, config) { r, i, previous in
            let mos = ReportMOS.mos(sdkMOS: r.mos[i], rtt: r.rtt[i], loss: r.loss[i], jitter: r.jitter[i],
                                    source: config.mos, emodel: config.emodel)
            let breaks = previous.map { TierParams.isGap(from: $0, to: r.ts[i], gapMs: config.gapMs) } ?? true
            let point = Point(ts: r.ts[i], mos: mos, loss: r.loss[i], rtt: r.rtt[i], jitter: r.jitter[i],
                              bitrate: r.bitrate[i], breaksLine: breaks)
            if buckets != nil {
                buckets!.add(point)
                return
            }
            points.append(point)
            if let previous { intervals.append(r.ts[i] - previous) }
            if let range, points.count > SVGCharts.maxPoints {
                // Past what a chart draws: bucketed from here on, the
                // points so far first (the fold runs in time order).
                buckets = SVGCharts.PointBuckets(start: range.start, end: range.end)
                for p in points { buckets!.add(p) }
                points = []
                intervals = []
            }
        }
        self.points = buckets?.kept ?? points
        self.intervals = intervals
    }

    /// What `SamplingNotice` reads of a participant, whose reports
    /// `reports` walks: `uid`, and `intervals` only for one who may sample
    /// seldom (`SamplingNotice.maySampleSeldom`); the rest are counted, not
    /// kept, as a client of 4M reports held 32 MB of them for nothing.
    /// Throws what reading the reports throws.
    public init(intervalsOf uid: String, _ reports: ConnectedReports, config: TierConfig) throws {
        self.uid = uid
        points = []
        sdkTiers = []
        reconnects = []
        var all = 0, gaps = 0
        try QualitySeries.forEachWarm(reports, config) { r, i, previous in
            guard let previous else { return }
            all += 1
            if r.ts[i] - previous > config.gapMs { gaps += 1 }
        }
        guard SamplingNotice.maySampleSeldom(intervals: all, gaps: gaps) else { return }
        var intervals: [Int64] = []
        try QualitySeries.forEachWarm(reports, config) { r, i, previous in
            if let previous { intervals.append(r.ts[i] - previous) }
        }
        self.intervals = intervals
    }

    /// Calls `body` with each warm report (its block and position there)
    /// in time order, and the time of the warm report before it in its
    /// connection (nil for a connection's first).
    @inline(__always)
    private static func forEachWarm(_ reports: ConnectedReports, _ config: TierConfig,
                                    _ body: (ReportColumns, Int, Int64?) -> Void) throws {
        var connection = -1
        var previous: Int64?
        try reports.forEachWarmRun(coldStartMs: config.coldStartMs) { w in
            let r = w.block
            if w.connection != connection { connection = w.connection; previous = nil }
            w.forEach { i, _ in
                body(r, i, previous)
                previous = r.ts[i]
            }
        }
    }
}
