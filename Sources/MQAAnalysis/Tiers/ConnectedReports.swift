import MQAModel

/// One client's reports read block by block (`ReportBlocks`), with its
/// connections, so that the passes after the analysis (a meeting report's
/// incidents, its sampling notice, talk time) and a tuning corpus walk
/// them without the series held whole: a client of 4M reports held 192 MB
/// of columns for them.
///
/// Made with one pass over the reports' times; each walk is one more.
/// Reports held in memory are one block, walked the same way.
public struct ConnectedReports {
    /// The client's connections (`ClientLog.connectionSpans()`).
    public let spans: [ConnectionSpan]
    /// The time of the client's last report; nil without reports.
    public let lastReportTs: Int64?
    /// How many reports the client has, warm or not.
    public let reportCount: Int
    private let blocks: ReportBlocks

    /// `client`'s connections found with `reports` for its reports (its
    /// own `reports` are not read); throws what reading them throws.
    public init(_ client: ClientLog, reports: ReportBlocks) throws {
        var spanner = ConnectionSpanner(events: client.events)
        var last: Int64?
        var count = 0
        try reports.forEach { block in
            for ts in block.ts { spanner.report(ts: ts) }
            if let t = block.ts.last { last = t }
            count += block.count
        }
        reportCount = count
        lastReportTs = last
        spans = spanner.finish(last: [client.events.last?.ts, last].compactMap { $0 }.max())
        blocks = reports
    }

    /// `client` with its reports in memory, which read without failing.
    public init(_ client: ClientLog) {
        // A block held in memory is read without any failure.
        try! self.init(client, reports: ReportBlocks(client.reports))
    }

    /// The client's last event time, reports included (`ClientLog.span`).
    public func lastTs(of client: ClientLog) -> Int64? {
        [client.events.last?.ts, lastReportTs].compactMap { $0 }.max()
    }

    /// Calls `body` with each run of reports inside one connection, in
    /// time order: the block that holds them, their positions there and
    /// the connection's index in `spans` (a connection's reports may run
    /// over several blocks).
    public func forEachConnectedRun(_ body: (_ block: ReportColumns, _ range: Range<Int>, _ connection: Int) throws -> Void)
        throws
    {
        var k = 0, g = 0
        try blocks.forEach { block in
            let lo = g, hi = g + block.count
            g = hi
            while k < spans.count, spans[k].reports.upperBound <= lo { k += 1 }
            while k < spans.count, spans[k].reports.lowerBound < hi {
                let a = max(lo, spans[k].reports.lowerBound), b = min(hi, spans[k].reports.upperBound)
                if a < b { try body(block, (a - lo)..<(b - lo), k) }
                // A connection going on into the next block is taken up there.
                if spans[k].reports.upperBound > hi { break }
                k += 1
            }
        }
    }

    /// Calls `body` with each run of warm reports' candidates (spec "Cold
    /// start": a report inside a connection, past its `coldStartMs`, with
    /// `rtt != 0` is warm), in time order: `WarmRun.forEach` gives its
    /// warm reports. A run per block and connection, so that the caller's
    /// loop over reports is its own code: called through a closure per
    /// report, the walks cost 6 % more instructions on a webinar's page.
    public func forEachWarmRun(coldStartMs: Int64, _ body: (WarmRun) throws -> Void) throws {
        // A run that goes on with the connection of the run before goes on
        // from its last report.
        var lastConnection = -1
        var lastTs: Int64 = 0
        try forEachConnectedRun { block, run, k in
            try body(WarmRun(block: block, run: run, connection: k,
                             warmFrom: TierParams.warmFrom(connectionStart: spans[k].start, coldStartMs: coldStartMs),
                             before: k == lastConnection ? lastTs : nil))
            lastConnection = k
            lastTs = block.ts[run.upperBound - 1]
        }
    }
}

/// Reports of one connection in one block, and which of them are warm.
public struct WarmRun {
    public let block: ReportColumns
    public let run: Range<Int>
    /// The connection's index in `ConnectedReports.spans`.
    public let connection: Int
    @usableFromInline let warmFrom: Int64
    /// The time of the report before the run's first in its connection.
    @usableFromInline let before: Int64?

    /// Calls `body` with the position of each warm report of the run in
    /// `block`, and the time of the report before it in its connection
    /// (warm or not; nil for the connection's first).
    @inlinable @inline(__always)
    public func forEach(_ body: (_ i: Int, _ previousTs: Int64?) throws -> Void) rethrows {
        var previous = before
        for i in run {
            let ts = block.ts[i]
            if TierParams.isWarm(ts: ts, rtt: block.rtt[i], warmFrom: warmFrom) { try body(i, previous) }
            previous = ts
        }
    }
}
