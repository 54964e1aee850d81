import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The tables the Markdown and the HTML page both show, built once: each
// format renders the same rows (HTML adds its row classes and links).
extension MeetingReport {
    /// Warm-report statistics per participant.
    var qualityTable: ReportTable {
        var t = ReportTable(headers: ["uid", "MOS mean", "p5", "p50", "p95", "loss % mean", "p95", "RTT ms mean", "p95",
                                      "jitter ms mean", "p95", "kbps mean", "p5"], numeric: Set(1...12))
        // Rounded as the JSON and CSV round them (`JSON.Places`): a mean of
        // ms read 104.68 here and 104.7 there. A percentile is one report's
        // value: exact, but for an E-model MOS.
        typealias P = JSON.Places
        func n(_ x: Double?, _ places: Int) -> String { ReportText.number(x, places: places) }
        func exact(_ x: Double?) -> String { x.map { $0.isFinite ? JSON.number($0) : "—" } ?? "—" }
        for p in analysis.participants {
            t.add(text: [p.uid, n(p.mos?.mean, P.mos), n(p.mos?.p5, P.mosValue), n(p.mos?.p50, P.mosValue), n(p.mos?.p95, P.mosValue),
                         n(p.lossPct?.mean, P.percent), exact(p.lossPct?.p95), n(p.rttMs?.mean, P.ms), exact(p.rttMs?.p95),
                         n(p.jitterMs?.mean, P.ms), exact(p.jitterMs?.p95), n(p.bitrateKbps?.mean, P.kbps), exact(p.bitrateKbps?.p5)])
        }
        return t
    }

    /// Time per tier, changes, flaps and SDK agreement per participant.
    var tierTable: ReportTable {
        var t = ReportTable(headers: ["uid"] + Tier.reportOrder.map(\.name) + ["changes", "flaps", "SDK agreement"],
                            numeric: Set(1...9))
        for p in analysis.participants {
            t.add(text: [p.uid] + Tier.reportOrder.map { ReportText.duration(p.tierMs[$0]) }
                  + [String(p.tierChanges), String(p.flaps), ReportText.percent(p.sdkTierAgreement)])
        }
        return t
    }

    /// The client each participant ran on (format 1.2): platform and OS
    /// version, SDK and app versions, device, and the networks in time
    /// order ("wifi → cellular"); a participant who rejoined as another
    /// client has a row per client ("alice, from +1:50"). `nil` when no
    /// participant logged any of it.
    func clientsTable(_ t0: Int64) -> ReportTable? {
        let people = context.participants.filter { !$0.client.isEmpty || !$0.networkPath.isEmpty }
        guard !people.isEmpty else { return nil }
        var t = ReportTable(headers: ["uid", "platform", "OS", "SDK", "app", "device", "network"])
        func row(_ who: String, _ c: ParticipantContext.ClientInfo, _ networks: [String]) {
            t.add(text: [who, c.platform ?? "—", c.osVersion ?? "—", c.sdkVersion ?? "—", c.appVersion ?? "—",
                         c.device ?? "—", networks.isEmpty ? "—" : networks.joined(separator: " → ")])
        }
        for p in context.participants {
            guard !p.clientHistory.isEmpty else {
                row(p.uid, p.client, p.networkPath)
                continue
            }
            for (i, h) in p.clientHistory.enumerated() {
                row(i == 0 ? p.uid : "\(p.uid), from \(ReportText.offset(h.ts, from: t0))", h.client, h.networks)
            }
        }
        return t
    }

    /// What imported dumps' standard stats say of each connection: the
    /// network path (a TURN relay, TCP), how long outgoing video was held
    /// back by the CPU or the bandwidth, the audio concealed. `nil` for
    /// event logs.
    var connectionsTable: ReportTable? {
        guard connections.values.contains(where: { !$0.isEmpty }) else { return nil }
        var t = ReportTable(headers: ["uid", "connection", "path", "sent video limited by", "received audio concealed"])
        for uid in connections.keys.sorted() {
            for c in connections[uid]! {
                t.add(text: [uid, c.connection, c.paths.isEmpty ? "—" : c.paths.joined(separator: " → "),
                             c.limitsText ?? "—", c.concealment.map { ReportText.number($0 * 100, places: 1) + "%" } ?? "—"])
            }
        }
        return t
    }

    /// Every disconnect; abnormal ones (with an error) marked in HTML.
    func disconnectsTable(_ t0: Int64) -> ReportTable {
        var t = ReportTable(headers: ["uid", "at", "reason", "error"])
        for p in analysis.participants {
            for x in p.disconnects {
                t.add(text: [p.uid, ReportText.offset(x.ts, from: t0), x.reason, x.error ?? "—"], htmlClass: x.error != nil ? "bad" : nil)
            }
        }
        return t
    }

    /// One table of the Context section.
    struct ContextTable {
        /// A participant's uid, `Shares`, …; nil for the counts that open
        /// the section.
        var heading: String?
        /// For a participant's timeline: how many context events it has.
        var events: Int?
        var table: ReportTable
    }

    /// The Context section's tables in order: the counts per participant,
    /// each participant's timeline, shares, moves; only those with rows.
    func contextTables(_ t0: Int64) -> [ContextTable] {
        let people = contextPeople
        var out: [ContextTable] = []
        if !people.isEmpty { out.append(ContextTable(table: contextCountsTable(people))) }
        for p in people where p.hasItems {
            let rows = contextRows(p)
            out.append(ContextTable(heading: p.uid, events: rows.count, table: contextTimelineTable(rows, t0)))
        }
        if !context.shares.isEmpty { out.append(ContextTable(heading: "Shares", table: sharesTable(t0))) }
        if !context.subMeetingMoves.isEmpty { out.append(ContextTable(heading: "Moves to sub-meetings", table: movesTable(t0))) }
        return out
    }

    /// Talk time and context counts per participant.
    /// The network-change column (format 1.2) only when there is one.
    func contextCountsTable(_ people: [ParticipantContext]) -> ReportTable {
        let networks = people.contains { !$0.networkChanges.isEmpty }
        var t = ReportTable(headers: ["uid", "talk time", "hands raised", "media changes", "audio routes",
                                      "interruptions", "device changes"] + (networks ? ["network changes"] : []),
                            numeric: Set(1...(networks ? 7 : 6)))
        for p in people {
            t.add(text: [p.uid, ReportText.duration(p.talkMs), String(p.handups), String(p.mediaChanges.count),
                         String(p.audioRoutes.count), String(p.interruptions.count), String(p.devices.count)]
                  + (networks ? [String(p.networkChanges.count)] : []))
        }
        return t
    }

    /// One participant's context timeline.
    func contextTimelineTable(_ rows: [ContextRow], _ t0: Int64) -> ReportTable {
        var t = ReportTable(headers: ["at", "what"])
        for r in rows { t.add(text: [ReportText.offset(r.ts, from: t0), r.what]) }
        return t
    }

    /// Screen and window shares.
    func sharesTable(_ t0: Int64) -> ReportTable {
        var t = ReportTable(headers: ["publisher", "kind", "start", "end"])
        for s in context.shares {
            t.add(text: [s.publisher, s.kind.rawValue, ReportText.offset(s.startTs, from: t0),
                         s.endTs.map { ReportText.offset($0, from: t0) } ?? "(not stopped)"])
        }
        return t
    }

    /// Moves to sub-meetings.
    func movesTable(_ t0: Int64) -> ReportTable {
        var t = ReportTable(headers: ["at", "uid", "target", "reason"])
        for m in context.subMeetingMoves { t.add(text: [ReportText.offset(m.ts, from: t0), m.uid, m.target, m.reason ?? "—"]) }
        return t
    }

    /// A subscription's row in the tracks tables (HTML adds its issues).
    func subscriptionCells(_ s: Subscription, _ t0: Int64) -> [ReportCell] {
        [.text(s.subscriber), .text(s.publisher), .text(s.track), .text(s.kind ?? "—"), .text(ReportText.offset(s.subscribeTs, from: t0)),
         .text(s.timeToFirstFrameMs.map { "\($0) ms" } ?? "never"), .int(s.stallCount), .text(ReportText.duration(s.stalledMs)),
         .text(ReportText.percent(s.stallRatio, places: 2)), .int(s.stallsUnderGoodTier)]
    }

    /// A stall's row in the stalls tables.
    func stallCells(_ s: Subscription, _ x: Stall, _ t0: Int64) -> [ReportCell] {
        [.text(s.subscriber), .text(s.track), .text(ReportText.offset(x.start, from: t0)),
         .text(ReportText.offset(x.end, from: t0) + (x.open ? " (open)" : "")), .text(ReportText.duration(x.durationMs)),
         .text(x.tier.name)]
    }

    /// The participants who have anything in the Context section.
    var contextPeople: [ParticipantContext] {
        context.participants.filter { $0.talkMs > 0 || $0.handups > 0 || $0.hasItems }
    }

    /// Whether the Context section has anything to show.
    var hasContextSection: Bool {
        !contextPeople.isEmpty || !context.shares.isEmpty || !context.subMeetingMoves.isEmpty
    }
}
