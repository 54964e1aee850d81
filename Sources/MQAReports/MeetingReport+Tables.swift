import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The tables the Markdown and the HTML page both show, built once: each
// format renders the same rows (HTML adds its row classes and links).
extension MeetingReport {
    /// Warm-report statistics per participant.
    var qualityTable: LazyReportTable {
        let t = ReportTable(headers: ["uid", "MOS mean", "p5", "p50", "p95", "loss % mean", "p95", "RTT ms mean", "p95",
                                      "jitter ms mean", "p95", "kbps mean", "p5"], numeric: Set(1...12))
        // Rounded as the JSON and CSV round them (`JSON.Places`): a mean of
        // ms read 104.68 here and 104.7 there. A percentile is one report's
        // value: exact, but for an E-model MOS.
        typealias P = JSON.Places
        func n(_ x: Double?, _ places: Int) -> ReportCell { .text(ReportText.number(x, places: places)) }
        func exact(_ x: Double?) -> ReportCell { .text(x.map { $0.isFinite ? JSON.number($0) : "—" } ?? "—") }
        let participants = analysis.participants
        return LazyReportTable(t, count: participants.count) { i in
            let p = participants[i]
            return [.text(p.uid), n(p.mos?.mean, P.mos), n(p.mos?.p5, P.mosValue), n(p.mos?.p50, P.mosValue), n(p.mos?.p95, P.mosValue),
                    n(p.lossPct?.mean, P.percent), exact(p.lossPct?.p95), n(p.rttMs?.mean, P.ms), exact(p.rttMs?.p95),
                    n(p.jitterMs?.mean, P.ms), exact(p.jitterMs?.p95), n(p.bitrateKbps?.mean, P.kbps), exact(p.bitrateKbps?.p5)]
        }
    }

    /// Time per tier, changes, flaps and SDK agreement per participant.
    var tierTable: LazyReportTable {
        let t = ReportTable(headers: ["uid"] + Tier.reportOrder.map(\.name) + ["changes", "flaps", "SDK agreement"],
                            numeric: Set(1...9))
        let participants = analysis.participants
        return LazyReportTable(t, count: participants.count) { i in
            let p = participants[i]
            return ([p.uid] + Tier.reportOrder.map { ReportText.duration(p.tierMs[$0]) }
                    + [String(p.tierChanges), String(p.flaps), ReportText.percent(p.sdkTierAgreement)]).map(ReportCell.text)
        }
    }

    /// The client each participant ran on (format 1.2): platform and OS
    /// version, SDK and app versions, device, and the networks in time
    /// order ("wifi → cellular"); a participant who rejoined as another
    /// client has a row per client ("alice, from +1:50"). `nil` when no
    /// participant logged any of it.
    func clientsTable(_ t0: Int64) -> LazyReportTable? {
        let people = context.participants
        guard people.contains(where: { !$0.client.isEmpty || !$0.networkPath.isEmpty }) else { return nil }
        let t = ReportTable(headers: ["uid", "platform", "OS", "SDK", "app", "device", "network"])
        // A row per participant, or per client of one who rejoined as
        // another: (participant, client) positions, -1 for the only one.
        var rows: [(person: Int32, client: Int32)] = []
        rows.reserveCapacity(people.count)
        for (k, p) in people.enumerated() {
            if p.clientHistory.isEmpty { rows.append((Int32(k), -1)) }
            for i in p.clientHistory.indices { rows.append((Int32(k), Int32(i))) }
        }
        func cells(_ who: String, _ c: ParticipantContext.ClientInfo, _ networks: [String]) -> [ReportCell] {
            [who, c.platform ?? "—", c.osVersion ?? "—", c.sdkVersion ?? "—", c.appVersion ?? "—",
             c.device ?? "—", networks.isEmpty ? "—" : networks.joined(separator: " → ")].map(ReportCell.text)
        }
        return LazyReportTable(t, count: rows.count) { k in
            let (person, client) = rows[k]
            let p = people[Int(person)]
            guard client >= 0 else { return cells(p.uid, p.client, p.networkPath) }
            let h = p.clientHistory[Int(client)]
            return cells(client == 0 ? p.uid : "\(p.uid), from \(ReportText.offset(h.ts, from: t0))", h.client, h.networks)
        }
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
    func disconnectsTable(_ t0: Int64) -> LazyReportTable {
        let t = ReportTable(headers: ["uid", "at", "reason", "error"])
        let participants = analysis.participants
        var rows: [(person: Int32, disconnect: Int32)] = []
        for (k, p) in participants.enumerated() { for i in p.disconnects.indices { rows.append((Int32(k), Int32(i))) } }
        return LazyReportTable(t, count: rows.count) { k in
            let p = participants[Int(rows[k].person)], x = p.disconnects[Int(rows[k].disconnect)]
            return ReportTable.Row(cells: [p.uid, ReportText.offset(x.ts, from: t0), x.reason, x.error ?? "—"].map(ReportCell.text),
                                   htmlClass: x.error != nil ? "bad" : nil)
        }
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

    /// Every stall of every subscription, in the meeting's order, as
    /// (subscription, stall) positions: the pairs themselves, 60,000 of a
    /// 20,000-viewer meeting, were 15 MB of copied subscriptions.
    var stallPositions: [(subscription: Int32, stall: Int32)] {
        var out: [(subscription: Int32, stall: Int32)] = []
        for (k, s) in analysis.subscriptions.enumerated() { for i in s.stalls.indices { out.append((Int32(k), Int32(i))) } }
        return out
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
