import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The first screen of a meeting report: the top incidents with their
// likely cause and the issues under each, who suffered most, and the
// issues in no incident; then every incident. The same content in HTML
// and Markdown.
extension MeetingReport {
    /// Participants the verdict lists before "and N more".
    static let verdictParticipants = 8
    /// Incidents the verdict lists.
    static let verdictIncidents = 5

    /// Whether any participant's impact is above 0 (else the ranking is
    /// left out: "who suffered most" over zeros reads as a finding).
    var someoneSuffered: Bool { (impacts.first?.impactMs ?? 0) > 0 }

    /// The ranking's place when nobody's impact is above 0.
    var nobodySuffered: String {
        analysis.participants.isEmpty ? "Nobody: no participant." : "Nobody: every participant's impact is 0."
    }

    /// `u-8f02 suffered most: …. 249 incidents: 165 own network, ….`
    var verdictLead: String {
        var s = ""
        if let worst = impacts.first, worst.impactMs > 0 {
            s += "\(worst.uid) suffered most: \(IncidentText.impact(worst)). "
        } else if analysis.participants.isEmpty {
            // Only context events (a device change before joining): there
            // is nobody to have suffered, which is no finding either.
            s += "No participant: no client in these logs joined this meeting or sent a quality report. "
        } else if hasQualityData && !analysis.participants.contains(where: { $0.warmReports > 0 }) {
            // Cold-start reports measure nothing (tiers.md): no tier either.
            let any = analysis.participants.contains { $0.coldReports > 0 }
            s += (any ? "Only cold-start quality reports in these logs" : "No measured quality report in these logs")
                + ", so nothing to tell of tiers; no stalls, no abnormal disconnect. "
        } else if hasQualityData {
            s += "Nobody suffered: no stalls, no poor/bad time, no abnormal disconnect"
            // "No poor/bad time" holds only for those whose tier was measured.
            let unmeasured = analysis.participants.filter { $0.warmReports == 0 }.map(\.uid)
            if unmeasured.isEmpty {
                s += ". "
            } else {
                let names = unmeasured.prefix(3).map(IncidentText.compactID).joined(separator: ", ")
                    + (unmeasured.count > 3 ? " and \(unmeasured.count - 3) more" : "")
                s += " (no measured quality report from \(names): nothing to tell of \(unmeasured.count == 1 ? "its" : "their") tiers). "
            }
        } else {
            s += "No stalls and no abnormal disconnect (no quality data for the rest). "
        }
        s += incidents.isEmpty ? "No incidents."
            : "\(incidents.count) incident\(incidents.count == 1 ? "" : "s"): \(IncidentText.causes(incidents))."
        return s + unseenSendersSentence
    }

    /// ` Sent video but left no log here: bob (its network, and what it
    /// received, are not in these logs).` Empty when every sender logged;
    /// a browser's UUID for a sender is cut to its first 8 characters.
    /// A browser dump holds one person: read alone, a call where the
    /// others suffered said "Nobody suffered", as if it had seen them.
    var unseenSendersSentence: String {
        let logged = Set(analysis.participants.map(\.uid))
        let unseen = Set(analysis.subscriptions.map(\.publisher)).subtracting(logged).sorted()
        guard !unseen.isEmpty else { return "" }
        let one = unseen.count == 1
        let names = unseen.prefix(3).map { IncidentText.compactID($0) }.joined(separator: ", ")
            + (unseen.count > 3 ? " and \(unseen.count - 3) more" : "")
        return " Sent video but left no log here: \(names) (\(one ? "its" : "their") network, and what \(one ? "it" : "they") received, "
            + "are not in these logs)."
    }

    func verdictHTML(_ t0: Int64) -> String {
        let placement = issuePlacement
        var b = "<section id=\"verdict\" class=\"verdict\">\n<h2>Verdict</h2>\n"
        b += "<p class=\"lead\">\(verdictLead.html)</p>\n"
        // Incidents first: on a narrow screen the columns stack, and the
        // top incident's cause must still be on the first screen.
        b += "<div class=\"cols\">\n<div>\n<h3>Top incidents</h3>\n"
        if incidents.isEmpty {
            b += "<p class=\"muted\">None.</p>\n"
        } else {
            b += "<ol class=\"incidents\">\n"
            for (n, i) in rankedIncidents.prefix(MeetingReport.verdictIncidents) {
                b += incidentItemHTML(n, i, t0, issues: placement.issues(under: n))
            }
            b += "</ol>\n<p class=\"muted\">Numbered in time order; " + HTMLPage.link("#incidents", "all \(incidents.count) incidents") + ".</p>\n"
        }
        b += "</div>\n<div>\n<h3>Who suffered most</h3>\n"
        if !someoneSuffered {
            b += "<p class=\"muted\">\(nobodySuffered)</p>\n"
        } else {
            var t = ReportTable(headers: ["#", "who", "impact", "stalled (% watched)", "poor/bad", "abn. disc."],
                                numeric: [0, 2, 3, 4, 5])
            for (k, p) in impacts.prefix(MeetingReport.verdictParticipants).enumerated() {
                let share = p.stalledShare.map { " · \(ReportText.percent($0))" } ?? ""
                t.add([.int(k + 1), .markup(html: uidLink(p.uid), text: p.uid), .text(ReportText.duration(p.impactMs)),
                       .text(ReportText.duration(p.stalledMs) + share), .text(p.lowTierMs.map(ReportText.duration) ?? "no data"),
                       .int(p.abnormalDisconnects)])
            }
            b += t.html
            if impacts.count > MeetingReport.verdictParticipants {
                b += "<p class=\"muted\">and \(impacts.count - MeetingReport.verdictParticipants) more in "
                b += HTMLPage.link("#participants", "Participants") + ".</p>\n"
            }
        }
        if !analysis.subscriptions.isEmpty { b += "<p class=\"muted\">\(stalledSentence.html)</p>\n" }
        b += "</div>\n</div>\n"
        if placement.hasUnplaced {
            b += "<h3>Issues in no incident</h3>\n<p class=\"chips\">" + MeetingReport.issueChipsHTML(placement.unplaced, uids: 3) + "</p>\n"
        }
        b += "<p class=\"muted\">" + issuesSummary(placement, html: true) + "</p>\n"
        return b + "</section>\n"
    }

    /// One incident of a list (verdict, focus): its number linking its row,
    /// who, the cause, when; then what happened and the evidence; then the
    /// issues under it. `note` (markup) follows the window.
    func incidentItemHTML(_ n: Int, _ i: Incident, _ t0: Int64, issues: [Issue], note: String = "") -> String {
        var b = "<li value=\"\(n)\">" + HTMLPage.link("#" + AnchorID.incident(n), "#\(n)")
        b += " <strong>" + incidentSubjectHTML(i) + "</strong> "
        b += "<span class=\"cause cause-\(i.cause.rawValue)\">\(i.cause.words)</span> "
        b += "<span class=\"when\">\(IncidentText.window(i, from: t0, display).html)</span>" + note + "<br/>"
        let evidence = incidentEvidence(i)
        b += "<span class=\"muted\">" + (IncidentText.kinds(i) + (evidence.isEmpty ? "" : ": " + evidence)).html + "</span>"
        if !issues.isEmpty { b += "<br/><span class=\"chips\">issues: " + MeetingReport.issueChipsHTML(issues, uids: 2, except: i.uid) + "</span>" }
        return b + "</li>\n"
    }

    /// The incident's subject with links: the participant's charts, and for
    /// a publisher-side track incident the track's row.
    func incidentSubjectHTML(_ i: Incident) -> String {
        guard let track = i.track else { return uidLink(i.uid) }
        // As in `IncidentText.subject`: a browser's UUID is told by its sender.
        if !IncidentText.names(track, i.uid) {
            return uidLink(i.uid) + "'s video (" + HTMLPage.link("#" + AnchorID.track(i.uid, track), IncidentText.shortID(track).html) + ")"
        }
        return HTMLPage.link("#" + AnchorID.track(i.uid, track), track.html) + " (" + uidLink(i.uid) + ")"
    }

    /// The incidents section to `emit`, a row at a time: the table of a
    /// noisy 2,000-viewer hour's 100,000 incidents was built whole.
    func writeIncidentsHTML(_ t0: Int64, _ emit: (String) -> Void) {
        let b = "<section id=\"incidents\">\n<h2>Incidents</h2>\n" + "<p class=\"legend\">\(MeetingReport.incidentRule.html)</p>\n"
        guard !incidents.isEmpty else { return emit(b + "<p class=\"muted\">None.</p>\n</section>\n") }
        let placement = issuePlacement
        var t = ReportTable(headers: ["#", "start", "end", "who", "what", "cause", "evidence", "issues"], numeric: [0, 1, 2])
        let listed = listedIncidents
        let title = listed.count == incidents.count ? "All \(incidents.count) incidents, in time order"
            : "The \(listed.count) incidents with the most impact (of \(incidents.count)), in time order"
        emit(b + HTMLPage.detailsOpening(title, open: incidents.count <= 10) + t.htmlHead)
        for k in listed {
            let i = incidents[k]
            t.rows.removeAll(keepingCapacity: true)
            t.add([.int(k + 1), .text(display.clockAndOffset(i.startTs, from: t0)),
                   .text(display.clockAndOffset(i.endTs, from: t0)),
                   .markup(html: incidentSubjectHTML(i), text: i.track.map { "\($0) (\(i.uid))" } ?? i.uid), .text(IncidentText.kinds(i)),
                   .markup(html: "<span class=\"cause cause-\(i.cause.rawValue)\">\(i.cause.words)</span>", text: i.cause.words),
                   .text(incidentEvidence(i)),
                   MeetingReport.codeChips(placement.issues(under: k + 1).map(\.code))],
                  id: AnchorID.incident(k + 1))
            emit(t.htmlRow(t.rows[0]))
        }
        var tail = ReportTable.htmlTail
        if listed.count < incidents.count {
            tail += "<p class=\"muted\">\(incidents.count - listed.count) more, with less impact, are left off this page; "
            tail += "<code>--format md</code> and <code>json</code> list every incident.</p>\n"
        }
        emit(tail + HTMLPage.detailsClosing + "</section>\n")
    }

    /// Rows the HTML incidents table lists at most, unless more are linked.
    /// A noisy 2,000-viewer hour has 94,000 incidents: 28 MB of table in a
    /// page, which a reader pages through by number anyway.
    public static let defaultIncidentListLimit = 1_000

    /// Positions of the incidents the HTML table lists, in time order:
    /// every one up to `incidentListLimit`; past it, that many with the
    /// most impact, and every one the page links to (the verdict's top
    /// incidents, an issue placed under it, the focused participant's shown
    /// in the focus section), so that no link on the page is dead.
    var listedIncidents: [Int] {
        guard let limit = incidentListLimit, incidents.count > limit else { return Array(incidents.indices) }
        var keep = [Bool](repeating: false, count: incidents.count)
        for k in rankedIncidents.order.prefix(max(limit, MeetingReport.verdictIncidents)) { keep[Int(k)] = true }
        for place in issuePlacement.places { if case .incident(let n) = place { keep[n - 1] = true } }
        if let focus {
            for f in focusIncidents(focus).prefix(MeetingReport.focusIncidentsShown) { keep[f.number - 1] = true }
        }
        return incidents.indices.filter { keep[$0] }
    }

    /// The incident rule in one paragraph (Docs/incidents.md has it whole).
    static let incidentRule = "An incident is a time window in which trouble signals of one participant co-occur: a stall they saw, "
        + "their tier at poor/bad, their warm reports with loss > 5 % or RTT > 400 ms, a disconnect with an error or followed by a "
        + "reconnect; signals at most 10 s apart merge. Stalls that every subscriber watching a track saw together (within 2 s) "
        + "are an incident of the track instead, caused on the publisher side. Otherwise the cause is the first that applies: "
        + "disconnect; own network (their own loss, RTT or tier; or, near a stall, a rise against their own baseline or a "
        + "network change); publisher side (the publisher's loss, RTT, tier or disconnect within 2 s of every stall); own device "
        + "(3 or more tracks stalled at once with a clean network); publisher side (one tile froze while others played, both "
        + "networks clean); unknown."

    /// The verdict and the incidents for `--format md`: lists, which wrap
    /// in a terminal, not wide tables.
    func verdictMarkdown(_ t0: Int64) -> String {
        let placement = issuePlacement
        var out = "## Verdict\n\n\(MarkdownText.inline(verdictLead))\n\n"
        if !incidents.isEmpty {
            out += "### Top incidents\n\n"
            for (n, i) in rankedIncidents.prefix(MeetingReport.verdictIncidents) {
                out += incidentLine(n, i, t0) + issuesLine(placement.issues(under: n), of: i)
            }
            out += "\n"
        }
        out += "### Who suffered most\n\n"
        if !someoneSuffered {
            // Not a ranking of zeros under "nobody suffered".
            out += nobodySuffered + "\n"
        } else {
            for (k, p) in impacts.prefix(MeetingReport.verdictParticipants).enumerated() {
                out += "\(k + 1). \(MarkdownText.inline(p.uid)): impact \(ReportText.duration(p.impactMs)); \(IncidentText.impact(p))\n"
            }
            if impacts.count > MeetingReport.verdictParticipants {
                out += "\nand \(impacts.count - MeetingReport.verdictParticipants) more (see Participants).\n"
            }
        }
        if !analysis.subscriptions.isEmpty { out += "\n" + stalledSentence + "\n" }
        if placement.hasUnplaced {
            out += "\n### Issues in no incident\n\n"
            for g in MeetingReport.issueGroups(placement.unplaced) {
                out += "- \(g.code.rawValue) ×\(g.count)" + (g.uids.isEmpty ? "" : ": " + MarkdownText.inline(IncidentText.list(g.uids, limit: 6))) + "\n"
            }
        }
        return out + "\n" + issuesSummary(placement, html: false) + "\n\n"
    }

    /// `- #12 14:31:05–14:31:43 (+12:03, 38 s) u-8f02: stall ×4, loss spike → own network (loss up to 37 %; …)`.
    func incidentLine(_ n: Int, _ i: Incident, _ t0: Int64) -> String {
        "- #\(n) \(IncidentText.window(i, from: t0, display)) \(MarkdownText.inline(IncidentText.subject(i))): \(IncidentText.kinds(i)) → "
            + "**\(i.cause.words)** (\(MarkdownText.inline(incidentEvidence(i))))\n"
    }

    /// `  - issues: high_packet_loss, video_stalls ×2 (alice, bob)` under
    /// the line of incident `i`; empty without issues.
    func issuesLine(_ issues: [Issue], of i: Incident) -> String {
        issues.isEmpty ? "" : "  - issues: " + MarkdownText.inline(MeetingReport.issueChipsText(issues, uids: 3, except: i.uid)) + "\n"
    }

    /// The Incidents section to `emit`, a line (and its issues) per incident.
    func writeIncidentsMarkdown(_ t0: Int64, _ emit: (String) -> Void) {
        emit("## Incidents\n\n\(MeetingReport.incidentRule)\n\n")
        if incidents.isEmpty { return emit("None.\n\n") }
        let placement = issuePlacement
        for (k, i) in incidents.enumerated() { emit(incidentLine(k + 1, i, t0) + issuesLine(placement.issues(under: k + 1), of: i)) }
        emit("\n")
    }
}

extension MeetingReport {
    /// An incident's evidence sentence; for a publisher-side one, with what
    /// the publisher's own dump says held its video back over the call
    /// (`qualityLimitationReason`), when it was imported from a dump.
    func incidentEvidence(_ i: Incident) -> String {
        let subscriptions = subscriptionsBy[i.uid].lazy.map { self.analysis.subscriptions[Int($0)] }
        var unseen = false
        if i.cause == .unknown {
            unseen = subscriptions.contains { s in i.evidence.tracks.contains(s.track) && !participantUIDs.contains(s.publisher) }
        }
        // Each stalled track's sender, where the participant received that
        // id from one sender only (the evidence keeps bare ids).
        var owners: [String: String] = [:]
        if i.track == nil {
            var shared: Set<String> = []
            for s in subscriptions where i.evidence.tracks.contains(s.track) {
                if let known = owners[s.track], known != s.publisher { shared.insert(s.track) }
                owners[s.track] = s.publisher
            }
            for t in shared { owners[t] = nil }
        }
        var text = IncidentText.evidence(i, qualityData: hasQualityData, publisherUnseen: unseen, owners: owners)
        // Someone who rejoined as another client: which one this was on.
        if let client = clientLabel(i.uid, at: i.startTs) {
            text += (text.isEmpty ? "" : "; ") + "\(i.uid) on \(client)"
        }
        guard i.cause == .publisher else { return text }
        for p in i.evidence.publishers {
            guard let said = MeetingReport.limitsOverTheCall(connections[p] ?? []) else { continue }
            text += (text.isEmpty ? "" : "; ") + "\(p)'s video held back by " + said
        }
        return text
    }

    /// `iPhone15,2, SDK 5.2.0`: the client `uid` was on at `ts`, for a
    /// participant who rejoined as another client (`clientHistory`), told
    /// by the fields that tell its clients apart (`app 2026.11.2` when only
    /// the app changed); nil for everyone else, whose Clients row says it
    /// all.
    func clientLabel(_ uid: String, at ts: Int64) -> String? {
        guard let history = context.participant(uid)?.clientHistory, let first = history.first else { return nil }
        let c = (history.last { $0.ts <= ts } ?? first).client
        func differs(_ field: CohortField) -> Bool { Set(history.map { $0.client[field] }).count > 1 }
        var parts: [String] = []
        // The device names the client best, the platform where the device
        // does not tell them apart; then the SDK (the fleet's question).
        // Versions alone only where the device stayed.
        let versions: [(CohortField, String)]
        if differs(.device) || differs(.platform) {
            parts.append(differs(.device) ? c.device ?? "a device not named" : c.platform ?? "a platform not named")
            versions = [(.sdkVersion, "SDK")]
        } else {
            versions = [(.osVersion, "OS"), (.sdkVersion, "SDK"), (.appVersion, "app")]
        }
        for (field, word) in versions where differs(field) { parts.append("\(word) \(c[field] ?? "not named")") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `cpu 34 s over the call`: what held a sender's video back, from its
    /// connections' contexts; nil when nothing did. A mesh sender encodes
    /// for each peer, so its connections are limited alike or nearly:
    /// `bandwidth 19 s–23 s over the call, on each of its 2 connections`
    /// (each reason's least and most), not one figure per connection.
    static func limitsOverTheCall(_ all: [ConnectionContext]) -> String? {
        let limited = all.filter { $0.limitsText != nil }
        guard let first = limited.first else { return nil }
        if all.count == 1 { return first.limitsText! + " over the call" }
        var ranges: [(reason: String, low: Int64, high: Int64)] = []
        for reason in ConnectionContext.limitReasons {
            let ms = limited.compactMap { $0.limitedMs[reason] }.filter { $0 > 0 }
            if let low = ms.min(), let high = ms.max() { ranges.append((reason, low, high)) }
        }
        ranges.sort { $0.high != $1.high ? $0.high > $1.high : $0.reason < $1.reason }
        let figures = ranges.map { r in
            r.low == r.high ? "\(r.reason) \(ReportText.duration(r.high))"
                : "\(r.reason) \(ReportText.duration(r.low))–\(ReportText.duration(r.high))"
        }
        let on = limited.count == all.count ? "on each of its \(all.count) connections" : "on \(limited.count) of its \(all.count) connections"
        return figures.joined(separator: ", ") + " over the call, " + on
    }
}
