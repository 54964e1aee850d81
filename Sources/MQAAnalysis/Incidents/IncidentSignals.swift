import MQABase
import MQAModel

/// One piece of evidence of trouble, before merging: a stall, a low-tier
/// run, a loss or RTT run, or a disconnect, over `[start, end]`.
struct IncidentSignal: Sendable, Equatable {
    var kind: IncidentKind
    /// Whose incident it joins (the subscriber of a stall; the publisher
    /// of a publisher-side stall cluster).
    var uid: String
    var start: Int64
    var end: Int64
    /// Stalls: the track, its publisher, the subscribers that stalled and
    /// their summed stall time (several for a shared cluster).
    var track: String?
    var publisher: String?
    var subscribers: [String] = []
    var stallCount = 0
    var stalledMs: Int64 = 0
    /// A cluster of stalls every watching subscriber saw together.
    var shared = false
    /// Low tier: the lowest tier; loss/RTT: the largest value.
    var lowestTier: Tier?
    var peak: Double?
    /// Disconnect: its error, and ms until the client came back (nil: never).
    var error: String?
    var awayMs: Int64?
    /// An RTT run measured while the client's own reports fell behind
    /// (`strainedGap`): the longest gap between them, ms.
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
    /// covers join. `warm`: the positions of the warm reports, in time order.
    static func spikes(_ client: ClientLog, config: TierConfig)
        -> (strong: [IncidentSignal], rises: [BaselineRise], warm: [Int32])
    {
        var loss: [IncidentSignal] = [], rtt: [IncidentSignal] = []
        var lossRise: [BaselineRise] = [], rttRise: [BaselineRise] = [], jitterRise: [BaselineRise] = []
        let r = client.reports
        func extend(_ list: inout [IncidentSignal], _ kind: IncidentKind, _ from: Int64, _ to: Int64, _ value: Double) {
            if let last = list.last, last.end >= from {
                list[list.count - 1].end = max(last.end, to)
                list[list.count - 1].peak = max(last.peak ?? value, value)
            } else {
                list.append(IncidentSignal(kind: kind, uid: client.uid, start: from, end: to, peak: value))
            }
        }
        func extend(_ list: inout [BaselineRise], _ kind: IncidentKind, _ from: Int64, _ to: Int64, _ value: Double, baseline: Double) {
            if let last = list.last, last.end >= from {
                list[list.count - 1].end = max(last.end, to)
                list[list.count - 1].peak = max(last.peak, value)
            } else {
                list.append(BaselineRise(kind: kind, start: from, end: to, peak: value, baseline: baseline))
            }
        }
        // Per warm report, in time order: its position, the end of the
        // time it covers, and its gap since the report before it in its
        // connection (`noGap` for a connection's first). Flat arrays,
        // reserved once, and one scratch array for the three baselines:
        // a client of 4M reports held ~110 bytes a report here.
        var positions: [Int32] = [], ends: [Int64] = [], gaps: [Int64] = []
        positions.reserveCapacity(r.ts.count)
        ends.reserveCapacity(r.ts.count)
        gaps.reserveCapacity(r.ts.count)
        for span in client.connectionSpans() {
            let warmFrom = TierParams.warmFrom(connectionStart: span.start, coldStartMs: config.coldStartMs)
            let first = positions.count
            var previous: Int64?
            for p in span.reports {
                defer { previous = r.ts[p] }
                guard TierParams.isWarm(ts: r.ts[p], rtt: r.rtt[p], warmFrom: warmFrom) else { continue }
                positions.append(Int32(p))
                gaps.append(previous.map { r.ts[p] - $0 } ?? IncidentSignal.noGap)
            }
            for k in first..<positions.count {
                let i = Int(positions[k])
                let next = k + 1 < positions.count ? r.ts[Int(positions[k + 1])] : span.end
                ends.append(max(r.ts[i], min(next, r.ts[i] + config.gapMs, span.end)))
            }
        }
        let strainedFrom = strainedGap(gaps)
        // One rank: a selection, not a sort (sorting a client's three
        // series was a third of finding a meeting's incidents).
        var scratch: [Double] = []
        func lowerQuartile(_ fill: (inout [Double]) -> Void) -> Double {
            scratch.removeAll(keepingCapacity: true)
            fill(&scratch)
            guard !scratch.isEmpty else { return 0 }
            return Selection.smallest((scratch.count - 1) / 4, of: &scratch)
        }
        let baseRtt = lowerQuartile { v in for p in positions { v.append(r.rtt[Int(p)]) } }
        let baseLoss = lowerQuartile { v in for p in positions { v.append(r.loss[Int(p)]) } }
        // Jitter 0 is no measurement where most intervals measured some (a
        // dump's interval that received no audio writes 0): left out then,
        // or a call that was silent half the time gets a baseline of 0 and
        // any 20 ms reads as a rise. Where nearly all are 0 (an SDK's clean
        // line, a spike around a stall), 0 is the baseline it is.
        let measured = positions.count { r.jitter[Int($0)] > 0 }
        let baseJitter = lowerQuartile { v in
            for p in positions where measured * 4 < positions.count || r.jitter[Int(p)] > 0 { v.append(r.jitter[Int(p)]) }
        }
        scratch = []
        // Per RTT run: its reports, and those after a strained gap.
        var rttReports: [(all: Int, strained: Int, longest: Int64)] = []
        for k in positions.indices {
            let i = Int(positions[k]), to = ends[k]
            let l = r.loss[i], t = r.rtt[i], j = r.jitter[i]
            if j >= max(jitterRiseMs, jitterRiseFactor * baseJitter) { extend(&jitterRise, .jitter, r.ts[i], to, j, baseline: baseJitter) }
            if l > IssueThresholds.lossP95Pct { extend(&loss, .loss, r.ts[i], to, l) }
            else if l >= max(lossRisePct, lossRiseFactor * baseLoss) { extend(&lossRise, .loss, r.ts[i], to, l, baseline: baseLoss) }
            if t > IssueThresholds.rttP95Ms {
                let count = rtt.count
                extend(&rtt, .rtt, r.ts[i], to, t)
                if rtt.count > count { rttReports.append((0, 0, 0)) }
                let gap = gaps[k] == IncidentSignal.noGap ? 0 : gaps[k]
                rttReports[rttReports.count - 1].all += 1
                if let from = strainedFrom, gap >= from && gap <= FeedSilence.longerThanMs {
                    rttReports[rttReports.count - 1].strained += 1
                    rttReports[rttReports.count - 1].longest = max(rttReports[rttReports.count - 1].longest, gap)
                }
            }
            else if t >= max(rttRiseFactor * baseRtt, baseRtt + rttRiseMs) { extend(&rttRise, .rtt, r.ts[i], to, t, baseline: baseRtt) }
        }
        // A run most of whose reports came late is the device's, not the
        // network's (`strainedGap`).
        for k in rtt.indices where rttReports[k].strained * 2 > rttReports[k].all { rtt[k].strainedGapMs = rttReports[k].longest }
        return (loss + rtt, lossRise + rttRise + jitterRise, positions)
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
    static func strainedGap(_ gaps: [Int64]) -> Int64? {
        var known = gaps.filter { $0 != noGap }
        guard known.count >= 10 else { return nil }
        known.sort()
        let median = known[(known.count - 1) / 2]
        let from = max(2 * median, median + 1000)
        return from <= FeedSilence.longerThanMs ? from : nil
    }

    /// `spikes`' gap of a connection's first warm report: none.
    static let noGap = Int64.min

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
