import MQABase
import MQAModel

/// One piece of evidence of trouble, before merging: a stall, a low-tier
/// run, a loss or RTT run, or a disconnect, over `[start, end]`.
///
/// What every kind has is stored in the struct; the fields of stalls and
/// disconnects share one box, made only when one of them is set. A
/// 20,000-viewer webinar has 66,000 loss and tier signals, and with every
/// field in the struct each took 168 bytes.
struct IncidentSignal: Sendable, Equatable {
    // In this order the one-byte fields pack after `peak`'s: 56 bytes, not 72.
    /// Whose incident it joins (the subscriber of a stall; the publisher
    /// of a publisher-side stall cluster).
    var uid: String
    var start: Int64
    var end: Int64
    /// The other fields (`RareFields`).
    private var details: RareFields<SignalDetails>
    /// Loss/RTT: the largest value; low tier: the lowest tier.
    var peak: Double?
    var kind: IncidentKind
    var lowestTier: Tier?

    init(kind: IncidentKind, uid: String, start: Int64, end: Int64, track: String? = nil, publisher: String? = nil,
         subscribers: [String] = [], stallCount: Int = 0, stalledMs: Int64 = 0, shared: Bool = false,
         lowestTier: Tier? = nil, peak: Double? = nil, error: String? = nil, awayMs: Int64? = nil, strainedGapMs: Int64? = nil) {
        self.kind = kind
        self.uid = uid
        self.start = start
        self.end = end
        self.lowestTier = lowestTier
        self.peak = peak
        let d = SignalDetails(track: track, publisher: publisher, subscribers: subscribers, stallCount: stallCount,
                              stalledMs: stalledMs, shared: shared, error: error, awayMs: awayMs, strainedGapMs: strainedGapMs)
        details = RareFields(d)
    }

    private subscript<T>(detail path: WritableKeyPath<SignalDetails, T>) -> T {
        get { details[path] }
        set { details[path] = newValue }
    }

    /// Stalls: the track, its publisher, the subscribers that stalled and
    /// their summed stall time (several for a shared cluster).
    var track: String? { details.value.track }
    var publisher: String? { details.value.publisher }
    var subscribers: [String] { details.value.subscribers }
    var stallCount: Int { details.value.stallCount }
    var stalledMs: Int64 { details.value.stalledMs }
    /// A cluster of stalls every watching subscriber saw together.
    var shared: Bool { details.value.shared }
    /// Disconnect: its error, and ms until the client came back (nil: never).
    var error: String? { details.value.error }
    var awayMs: Int64? { details.value.awayMs }
    /// An RTT run measured while the client's own reports fell behind
    /// (`strainedGap`): the longest gap between them, ms.
    var strainedGapMs: Int64? {
        get { details.value.strainedGapMs }
        set { self[detail: \.strainedGapMs] = newValue }
    }
}

/// The fields of `IncidentSignal` that only stalls, disconnects and
/// strained RTT runs set.
struct SignalDetails: RareFieldSet {
    static let none = SignalDetails()
    var track: String?
    var publisher: String?
    var subscribers: [String] = []
    var stallCount = 0
    var stalledMs: Int64 = 0
    var shared = false
    var error: String?
    var awayMs: Int64?
    var strainedGapMs: Int64?
}

/// A run of a participant's warm reports above their own baseline but
/// below the issue lines: it explains a stall near it and makes no
/// incident alone. Kept apart from `IncidentSignal` (a fifth of its size):
/// a noisy client of a long call has a rise every few reports, and a
/// 500-viewer hour held 94 MB of them as signals.
struct BaselineRise: Sendable, Equatable {
    var kind: IncidentKind
    var start: Int64
    var end: Int64
    /// The largest value of the run, and the client's baseline it rose from.
    var peak: Double
    var baseline: Double
}

extension IncidentSignal {
    /// Low-tier runs: maximal runs of adjacent holds at `poor` or `bad`.
    static func lowTier(_ uid: String, _ timeline: TierTimeline?) -> [IncidentSignal] {
        var out: [IncidentSignal] = []
        for h in timeline?.holds ?? [] where h.tier == .poor || h.tier == .bad {
            if let last = out.last, last.end == h.from {
                out[out.count - 1].end = h.to
                out[out.count - 1].lowestTier = min(last.lowestTier ?? h.tier, h.tier)
            } else {
                out.append(IncidentSignal(kind: .lowTier, uid: uid, start: h.from, end: h.to, lowestTier: h.tier))
            }
        }
        return out
    }

    /// How far above their own baseline (the lower quartile of their warm
    /// reports: their network on a good day, even if most of the call was
    /// bad) a participant's RTT, loss or jitter must go to count as a rise
    /// below the fixed lines: RTT 3× and +100 ms (69 → 335 ms is one), loss
    /// 4× and at least 2 %, jitter 3× and at least 20 ms.
    static let rttRiseFactor = 3.0, rttRiseMs = 100.0, lossRiseFactor = 4.0, lossRisePct = 2.0
    static let jitterRiseFactor = 3.0, jitterRiseMs = 20.0

    /// Loss and RTT runs of one client: its warm reports (the statistics'
    /// rule: inside a connection, past the cold start, `rtt != 0`) beyond
    /// the issue thresholds (`strong`, which make incidents), and those
    /// only above the client's own baseline (`rises`, which explain a stall
    /// but make no incident alone). A report covers `[ts, next warm
    /// report)`, at most `gapMs`, never past its connection's end; touching
    /// covers join. `keepRise` picks the rises returned, each judged whole
    /// (nil: all): the finder keeps those near a stall, and a noisy client
    /// of a long call has a rise every few reports. `figures`: the warm
    /// reports whose time `keepFigure` (what the cause rules read later).
    ///
    /// Five passes over the reports, each holding at most one column of warm
    /// values: a stored client of 4M reports is read block by block instead
    /// of held whole. Throws what reading the reports throws.
    static func spikes(_ uid: String, _ reports: ConnectedReports, config: TierConfig,
                       keepRise: ((Int64, Int64) -> Bool)? = nil, keepFigure: (Int64) -> Bool = { _ in true }) throws
        -> (strong: [IncidentSignal], rises: [BaselineRise], figures: WarmFigures)
    {
        // One scratch array, reserved once, for the gaps' median and the
        // three baselines, each a selection, not a sort (sorting a client's
        // three series was a third of finding a meeting's incidents).
        var scratch: [Double] = []
        scratch.reserveCapacity(reports.reportCount)
        var warm = 0, measured = 0
        try reports.forEachWarmRun(coldStartMs: config.coldStartMs) { w in
            let r = w.block
            w.forEach { i, previous in
                warm += 1
                if r.jitter[i] > 0 { measured += 1 }
                if let previous { scratch.append(Double(r.ts[i] - previous)) }
            }
        }
        let strainedFrom = strainedGap(gaps: &scratch)
        func lowerQuartile(of column: KeyPath<ReportColumns, [Double]>, skippingZero: Bool = false) throws -> Double {
            scratch.removeAll(keepingCapacity: true)
            try reports.forEachWarmRun(coldStartMs: config.coldStartMs) { w in
                w.block[keyPath: column].withUnsafeBufferPointer { v in
                    w.forEach { i, _ in
                        if !skippingZero || v[i] > 0 { scratch.append(v[i]) }
                    }
                }
            }
            guard !scratch.isEmpty else { return 0 }
            return Selection.smallest((scratch.count - 1) / 4, of: &scratch)
        }
        let baseRtt = try lowerQuartile(of: \.rtt)
        let baseLoss = try lowerQuartile(of: \.loss)
        // Jitter 0 is no measurement where most intervals measured some (a
        // dump's interval that received no audio writes 0): left out then,
        // or a call that was silent half the time gets a baseline of 0 and
        // any 20 ms reads as a rise. Where nearly all are 0 (an SDK's clean
        // line, a spike around a stall), 0 is the baseline it is.
        let baseJitter = try lowerQuartile(of: \.jitter, skippingZero: measured * 4 >= warm)
        scratch = []
        var loss = SignalRuns(), rtt = SignalRuns()
        var lossRise = RiseRuns(), rttRise = RiseRuns(), jitterRise = RiseRuns()
        // Per RTT run: its reports, and those after a strained gap.
        var rttReports: [(all: Int, strained: Int, longest: Int64)] = []
        var figures = WarmFigures()
        // A warm report waits for the next one of its connection: the time
        // it covers ends there.
        var pending: (ts: Int64, loss: Double, rtt: Double, jitter: Double, gap: Int64, connection: Int)?
        func take(_ w: (ts: Int64, loss: Double, rtt: Double, jitter: Double, gap: Int64, connection: Int), next: Int64) {
            let end = reports.spans[w.connection].end
            let ts = w.ts, to = max(ts, min(next, ts + config.gapMs, end))
            let l = w.loss, t = w.rtt, j = w.jitter
            if j >= max(jitterRiseMs, jitterRiseFactor * baseJitter) {
                jitterRise.extend(.jitter, ts, to, j, baseline: baseJitter, keep: keepRise)
            }
            if l > IssueThresholds.lossP95Pct { loss.extend(.loss, uid, ts, to, l) }
            else if l >= max(lossRisePct, lossRiseFactor * baseLoss) {
                lossRise.extend(.loss, ts, to, l, baseline: baseLoss, keep: keepRise)
            }
            if t > IssueThresholds.rttP95Ms {
                if rtt.extend(.rtt, uid, ts, to, t) { rttReports.append((0, 0, 0)) }
                rttReports[rttReports.count - 1].all += 1
                if let from = strainedFrom, w.gap >= from && w.gap <= FeedSilence.longerThanMs {
                    rttReports[rttReports.count - 1].strained += 1
                    rttReports[rttReports.count - 1].longest = max(rttReports[rttReports.count - 1].longest, w.gap)
                }
            }
            else if t >= max(rttRiseFactor * baseRtt, baseRtt + rttRiseMs) {
                rttRise.extend(.rtt, ts, to, t, baseline: baseRtt, keep: keepRise)
            }
        }
        try reports.forEachWarmRun(coldStartMs: config.coldStartMs) { w in
            let r = w.block, connection = w.connection
            w.forEach { i, previous in
                let ts = r.ts[i]
                if let p = pending { take(p, next: p.connection == connection ? ts : reports.spans[p.connection].end) }
                pending = (ts, r.loss[i], r.rtt[i], r.jitter[i], previous.map { ts - $0 } ?? 0, connection)
                if keepFigure(ts) { figures.append(ts: ts, loss: r.loss[i], rtt: r.rtt[i]) }
            }
        }
        if let w = pending { take(w, next: reports.spans[w.connection].end) }
        // A run most of whose reports came late is the device's, not the
        // network's (`strainedGap`).
        for k in rtt.runs.indices where rttReports[k].strained * 2 > rttReports[k].all {
            rtt.runs[k].strainedGapMs = rttReports[k].longest
        }
        var strong = loss.runs
        strong.append(contentsOf: rtt.runs)
        var rises = lossRise.finish(keep: keepRise)
        rises.append(contentsOf: rttRise.finish(keep: keepRise))
        rises.append(contentsOf: jitterRise.finish(keep: keepRise))
        return (strong, rises, figures.fitted())
    }

    /// `spikes` of a client with its reports in memory (tests).
    static func spikes(_ client: ClientLog, config: TierConfig, keepRise: ((Int64, Int64) -> Bool)? = nil)
        -> (strong: [IncidentSignal], rises: [BaselineRise], figures: WarmFigures)
    {
        // Reports held in memory are read without any failure.
        try! spikes(client.uid, ConnectedReports(client), config: config, keepRise: keepRise)
    }

    /// `spikes`' strong runs of one kind: a report touching the last run
    /// extends it.
    private struct SignalRuns {
        var runs: [IncidentSignal] = []

        /// Adds a report's `[from, to]`; true when it began a new run.
        @discardableResult
        mutating func extend(_ kind: IncidentKind, _ uid: String, _ from: Int64, _ to: Int64, _ value: Double) -> Bool {
            if let last = runs.last, last.end >= from {
                runs[runs.count - 1].end = max(last.end, to)
                runs[runs.count - 1].peak = max(last.peak ?? value, value)
                return false
            }
            runs.append(IncidentSignal(kind: kind, uid: uid, start: from, end: to, peak: value))
            return true
        }
    }

    /// `spikes`' rises of one kind: the open run is held apart until a
    /// report no longer touches it, and only then judged by `keep`.
    private struct RiseRuns {
        var kept: [BaselineRise] = []
        var open: BaselineRise?

        mutating func extend(_ kind: IncidentKind, _ from: Int64, _ to: Int64, _ value: Double, baseline: Double,
                             keep: ((Int64, Int64) -> Bool)?) {
            if let run = open, run.end >= from {
                open!.end = max(run.end, to)
                open!.peak = max(run.peak, value)
                return
            }
            close(keep)
            open = BaselineRise(kind: kind, start: from, end: to, peak: value, baseline: baseline)
        }

        mutating func finish(keep: ((Int64, Int64) -> Bool)?) -> [BaselineRise] {
            close(keep)
            return kept
        }

        private mutating func close(_ keep: ((Int64, Int64) -> Bool)?) {
            if let run = open, keep?(run.start, run.end) ?? true { kept.append(run) }
            open = nil
        }
    }

    /// The gap between two of a client's reports from which they came late:
    /// twice their median gap, and a second more, but under a feed's
    /// silence (`FeedSilence`, the app in the background). A report comes
    /// from the client's own timer (the SDK's, or the stats page's once a
    /// second), so reports seconds late mean the device did not keep up
    /// (its CPU starved, the app hung); the RTT it measured then holds its
    /// own delay in answering. (A recorded mesh call, one browser held to
    /// 5 % of a core for 20 s: its reports came 2.0–3.7 s apart instead of
    /// 1 s, with RTT 1.2–2.9 s and no loss; read as its network.) Nil
    /// with too few gaps to tell.
    static func strainedGap(gaps: inout [Double]) -> Int64? {
        guard gaps.count >= 10 else { return nil }
        // Whole milliseconds, exact as doubles; a selection puts the median
        // where a sort would.
        let median = Int64(Selection.smallest((gaps.count - 1) / 2, of: &gaps))
        let from = max(2 * median, median + 1000)
        return from <= FeedSilence.longerThanMs ? from : nil
    }

    /// A client's `network_change` events as `(ts, "wifi→cellular")`: the
    /// detail the app logged, else the previous and new network.
    static func networkChanges(_ client: ClientLog) -> [(ts: Int64, words: String)] {
        var previous = client.events.first { $0.payload.kind == .meetingJoin }?.payload.string("netType")
        var out: [(ts: Int64, words: String)] = []
        for e in client.context where e.payload.kind == .networkChange {
            let net = e.payload.string("netType") ?? "?"
            let words = e.payload.string("detail") ?? (previous.map { "\($0)→\(net)" } ?? "→\(net)")
            out.append((e.ts, words))
            previous = net
        }
        return out.sorted { $0.ts < $1.ts }
    }

    /// Disconnects that are trouble: those with an error, and those the
    /// client reconnected after (a `meeting_ended` or `kicked` is neither).
    /// The window runs to the client's next join/reconnect.
    static func disconnects(_ client: ClientLog) -> [IncidentSignal] {
        var out: [IncidentSignal] = []
        for (i, e) in client.events.enumerated() where e.payload.kind == .disconnect {
            let back = client.events[(i + 1)...].first { $0.payload.kind == .reconnect || $0.payload.kind == .meetingJoin }
            let error = e.payload.string("error")
            guard error != nil || back != nil else { continue }
            out.append(IncidentSignal(kind: .disconnect, uid: client.uid, start: e.ts, end: back?.ts ?? e.ts,
                                      error: error, awayMs: back.map { $0.ts - e.ts }))
        }
        return out
    }

    /// Every stall as a signal of its subscriber.
    static func stall(_ s: Subscription, _ x: Stall) -> IncidentSignal {
        IncidentSignal(kind: .stall, uid: s.subscriber, start: x.start, end: x.end, track: s.track, publisher: s.publisher,
                       subscribers: [s.subscriber], stallCount: 1, stalledMs: x.durationMs)
    }
}
