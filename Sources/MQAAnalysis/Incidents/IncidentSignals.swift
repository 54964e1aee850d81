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

    /// Loss and RTT runs of one client: its warm reports (the statistics'
    /// rule: inside a connection, past the cold start, `rtt != 0`) beyond
    /// the issue thresholds. A report covers `[ts, next warm report)`, at
    /// most `gapMs`, never past its connection's end; touching covers join.
    static func spikes(_ client: ClientLog, config: TierConfig) -> [IncidentSignal] {
        var loss: [IncidentSignal] = [], rtt: [IncidentSignal] = []
        let r = client.reports
        func extend(_ list: inout [IncidentSignal], _ kind: IncidentKind, _ from: Int64, _ to: Int64, _ value: Double) {
            if let last = list.last, last.end >= from {
                list[list.count - 1].end = max(last.end, to)
                list[list.count - 1].peak = max(last.peak ?? value, value)
            } else {
                list.append(IncidentSignal(kind: kind, uid: client.uid, start: from, end: to, peak: value))
            }
        }
        for span in client.connectionSpans() {
            let warmFrom = TierParams.warmFrom(connectionStart: span.start, coldStartMs: config.coldStartMs)
            let warm = span.reports.filter { TierParams.isWarm(ts: r.ts[$0], rtt: r.rtt[$0], warmFrom: warmFrom) }
            for (k, i) in warm.enumerated() {
                let next = k + 1 < warm.count ? r.ts[warm[k + 1]] : span.end
                let to = max(r.ts[i], min(next, r.ts[i] + config.gapMs, span.end))
                if r.loss[i] > IssueThresholds.lossP95Pct { extend(&loss, .loss, r.ts[i], to, r.loss[i]) }
                if r.rtt[i] > IssueThresholds.rttP95Ms { extend(&rtt, .rtt, r.ts[i], to, r.rtt[i]) }
            }
        }
        return loss + rtt
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
