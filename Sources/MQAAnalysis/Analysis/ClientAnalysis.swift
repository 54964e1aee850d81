import MQABase
import MQAModel

/// One client's part of a `MeetingAnalysis`.
struct ClientAnalysis {
    var participant: ParticipantAnalysis
    var connections: [ConnectionAnalysis]
    var timeline: TierTimeline
    /// As subscriber, stall tiers filled in from `timeline`.
    var subscriptions: [Subscription]
    /// First and last event time, reports included.
    var span: (first: Int64, last: Int64)?
    /// Each warm report's time and MOS, in report order; kept only when
    /// asked (`keepingWarmMOS`): the network split of the cohorts
    /// attributes a MOS to the network it was measured on.
    var warmMOS: [TimedMOS] = []

    /// Analyses one client from its events (context events apart) and its
    /// reports, read block by block: one pass runs the tier machine over
    /// every connection and keeps the warm reports' MOS; then one pass per
    /// metric gathers that metric's warm values for its percentiles. Memory
    /// is one column of warm values and a bit per report, whatever the
    /// series' length.
    static func analyze(uid: String, events: [TimedEvent], reports: ReportBlocks,
                        config: TierConfig, cdn: Bool, keepingWarmMOS: Bool = false) throws -> ClientAnalysis {
        let p = TierParams(config)
        let eventLog = ClientLog(uid: uid, events: events)
        var spanner = ConnectionSpanner(events: events)
        var connections: [ConnectionAnalysis] = []
        var tierMs = TierDurations()
        var agreement = TierAgreement()
        var holds: [TierHold] = []
        var warm = WarmBits()
        var warmMOS: [TimedMOS] = []
        var reportSpan: (first: Int64, last: Int64)?

        // The run of the open connection (spans.count), when one is open.
        var hasRun = false
        var run = TierRun(start: 0, p)
        var sink = RecordingSink(start: 0)
        // Finishes the runs of connections the spanner closed (a connection
        // without reports gets an empty run) and starts one for a new open
        // connection.
        func settle() {
            while connections.count < spanner.spans.count {
                let span = spanner.spans[connections.count]
                if !hasRun { run = TierRun(start: span.start, p); sink = RecordingSink(start: span.start) }
                hasRun = false
                run.finish(end: span.end, p, &sink)
                sink.finish(end: span.end)
                let c = sink.analysis(uid: uid, span: span)
                connections.append(c)
                tierMs.add(c.tierMs)
                // The first connection's holds are shared, not copied: a
                // client of one connection (the usual one) held its tier
                // history twice, 25 MB of a 2,000-viewer webinar's report.
                if holds.isEmpty { holds = c.holds } else { holds += c.holds }
                agreement.add(eventLog.sdkTierAgreement(in: span, holds: c.holds))
            }
            if spanner.isOpen, !hasRun {
                run = TierRun(start: spanner.start, p)
                sink = RecordingSink(start: spanner.start)
                hasRun = true
            }
        }

        var index = 0
        var feed = FeedSilenceFinder()
        try reports.forEach { block in
            for k in 0..<block.count {
                let ts = block.ts[k]
                let held = spanner.report(ts: ts)
                if held != hasRun || connections.count != spanner.spans.count { settle() }
                // A CDN meeting has no quality feed (event-log.md): a report
                // one logs anyway drives no tier, so its time is `unknown`
                // and its stalls are not "under a good tier".
                if held && !cdn {
                    feed.report(ts: ts, connection: spanner.spans.count)
                    let rtt = block.rtt[k]
                    let mos = ReportMOS.mos(sdkMOS: block.mos[k], rtt: rtt, loss: block.loss[k],
                                            jitter: block.jitter[k], source: config.mos, emodel: config.emodel)
                    if run.feed(report: index, ts: ts, rtt: rtt, mos: mos, p, &sink) {
                        warm.insert(index, mos: mos)
                        if keepingWarmMOS { warmMOS.append(TimedMOS(ts: ts, mos: mos)) }
                    }
                }
                index += 1
            }
            if let first = block.ts.first, let last = block.ts.last { reportSpan = (reportSpan?.first ?? first, last) }
        }
        let last = [events.last?.ts, reportSpan?.last].compactMap { $0 }.max()
        _ = spanner.finish(last: last)
        settle()

        var disconnects: [Disconnect] = []
        var reconnects = 0
        var firstReconnect: Int64?
        for e in events {
            switch e.payload.kind {
            case .disconnect:
                disconnects.append(Disconnect(ts: e.ts, reason: e.payload.string("reason") ?? "", error: e.payload.string("error")))
            case .reconnect:
                reconnects += 1
                if firstReconnect == nil { firstReconnect = e.ts }
            default: break
            }
        }
        // One metric's warm values at a time, each dropped once summarised.
        func distribution(_ column: KeyPath<ReportColumns, [Double]>) throws -> Distribution? {
            cdn ? nil : Distribution(try warm.values(of: column, in: reports))
        }
        let mos = cdn ? nil : Distribution(warm.takeMOS())
        let participant = ParticipantAnalysis(
            uid: uid, connections: connections.count, warmReports: warm.count,
            coldReports: connections.reduce(0) { $0 + $1.coldReports },
            mos: mos, lossPct: try distribution(\.loss), rttMs: try distribution(\.rtt),
            jitterMs: try distribution(\.jitter), bitrateKbps: try distribution(\.bitrate),
            tierMs: tierMs, tierChanges: connections.reduce(0) { $0 + $1.changes.count },
            flaps: connections.reduce(0) { $0 + $1.flaps },
            sdkAgreement: agreement, sdkTierAgreement: cdn ? nil : agreement.ratio,
            disconnects: disconnects, reconnects: reconnects, silences: cdn ? [] : feed.silences(spans: spanner.spans),
            firstReconnectTs: firstReconnect)

        let timeline = TierTimeline(holds: holds)
        var subscriptions = eventLog.subscriptions(until: last)
        for i in subscriptions.indices {
            for k in subscriptions[i].stalls.indices {
                subscriptions[i].stalls[k].tier = timeline.tier(at: subscriptions[i].stalls[k].start)
            }
        }
        let first = [events.first?.ts, reportSpan?.first].compactMap { $0 }.min()
        return ClientAnalysis(
            participant: participant, connections: connections, timeline: timeline, subscriptions: subscriptions,
            span: first.flatMap { f in last.map { (f, $0) } }, warmMOS: warmMOS)
    }
}


/// Which of a client's reports were warm (a bit each, by position in the
/// series) and their MOS, in report order.
struct WarmBits {
    private var bits: [UInt64] = []
    private var mos: [Double] = []
    private(set) var count = 0

    mutating func insert(_ index: Int, mos value: Double) {
        let word = index >> 6
        if word >= bits.count { bits.append(contentsOf: repeatElement(0, count: word - bits.count + 1)) }
        bits[word] |= 1 << UInt64(index & 63)
        mos.append(value)
        count += 1
    }

    /// The warm reports' MOS, handed over (no longer held here).
    mutating func takeMOS() -> [Double] {
        defer { mos = [] }
        return mos
    }

    /// One pass over `reports` gathering `column` of the warm ones, in order,
    /// into a buffer of `count` values (appending one by one checked the
    /// array's uniqueness per value: millions per meeting).
    func values(of column: KeyPath<ReportColumns, [Double]>, in reports: ReportBlocks) throws -> [Double] {
        var out = [Double](repeating: 0, count: count)
        var filled = 0
        var base = 0
        try out.withUnsafeMutableBufferPointer { o in
            try bits.withUnsafeBufferPointer { b in
                try reports.forEach { block in
                    block[keyPath: column].withUnsafeBufferPointer { v in
                        for k in 0..<v.count {
                            let i = base + k
                            let word = i >> 6
                            if word < b.count, b[word] & (1 << UInt64(i & 63)) != 0, filled < o.count {
                                o[filled] = v[k]
                                filled += 1
                            }
                        }
                        base += v.count
                    }
                }
            }
        }
        out.removeLast(out.count - filled)
        return out
    }
}
