import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The issues of a meeting, each shown once (`IssuePlacement`): under the
// incident that shows the same trouble, in no incident, or, for the tier's
// misses, in the Tier tuning section. The same in HTML, Markdown and JSON.
extension MeetingReport {
    /// Issue codes by count, most frequent first (ties: code order), with
    /// who raised them.
    static func issueGroups(_ issues: [Issue]) -> [(code: IssueCode, count: Int, uids: [String])] {
        // Changed in place, and each uid looked up in a set: a copy of the
        // list and a scan of it per issue made the 52,000 issues of a
        // 20,000-viewer meeting quadratic.
        var groups: [IssueCode: (Int, [String])] = [:]
        var seen: [IssueCode: Set<String>] = [:]
        for i in issues {
            groups[i.code, default: (0, [])].0 += 1
            if let uid = i.uid, seen[i.code, default: []].insert(uid).inserted { groups[i.code]!.1.append(uid) }
        }
        let order = { (c: IssueCode) in IssueCode.allCases.firstIndex(of: c)! }
        return IssueCode.allCases.compactMap { c in groups[c].map { (c, $0.0, $0.1) } }
            .sorted { ($1.count, order($0.code)) < ($0.count, order($1.code)) }
    }

    /// `high_packet_loss (bob) · video_stalls ×2 (alice, bob)` as chips.
    /// `except` (under an incident: its participant) is left out of the
    /// names, which would only repeat it.
    static func issueChipsHTML(_ issues: [Issue], uids limit: Int, except: String? = nil) -> String {
        issueGroups(issues).map { g in
            let uids = g.uids.filter { $0 != except }
            return "<span class=\"code\" title=\"\(IncidentText.list(g.uids, limit: 12).html)\">\(g.code.rawValue)</span>"
                + (g.count > 1 ? "×\(g.count)" : "")
                + (uids.isEmpty ? "" : " <span class=\"muted\">(\(IncidentText.list(uids, limit: limit).html))</span>")
        }.joined(separator: " · ")
    }

    /// `high_packet_loss (bob), video_stalls ×2 (alice, bob)`.
    static func issueChipsText(_ issues: [Issue], uids limit: Int, except: String? = nil) -> String {
        issueGroups(issues).map { g in
            let uids = g.uids.filter { $0 != except }
            return g.code.rawValue + (g.count > 1 ? " ×\(g.count)" : "") + (uids.isEmpty ? "" : " (\(IncidentText.list(uids, limit: limit)))")
        }.joined(separator: ", ")
    }

    /// The verdict's last line: how many issues, where they are.
    /// `53 issues: 40 under an incident, 13 in no incident; 83 tier-tuning diagnostics under Tier tuning
    /// (136 in all, as the fleet ranking counts them).`
    func issuesSummary(_ placement: IssuePlacement, html: Bool) -> String {
        let n = placement.problemCount, tuning = placement.tuningCount
        func link(_ anchor: String, _ text: String) -> String { html ? HTMLPage.link("#" + anchor, text.html) : text }
        var s = n == 0 ? "No issues" : "\(link("issues", n == 1 ? "1 issue" : "\(n) issues")): "
            + "\(n - placement.unplacedCount) under an incident, \(placement.unplacedCount) in no incident"
        if tuning > 0 {
            s += "; \(tuning) tier-tuning diagnostic\(tuning == 1 ? "" : "s") (stalls that began under a good tier) under "
                + link("tuning", "Tier tuning")
            // The fleet ranking's issue count is of both kinds: say the sum,
            // so that the two pages' numbers meet.
            s += " (\(n + tuning) in all, as the fleet ranking counts them)"
        }
        return s + "."
    }

    /// The call's issues (no tuning diagnostics), those under incidents in
    /// incident order, then those in no incident; the meeting's issue order
    /// within each. Positions in `analysis.issues`, with each one's
    /// incident number: not the issues themselves, which for a
    /// 20,000-viewer meeting were a second copy of 12 MB.
    func placedIssues(_ placement: IssuePlacement) -> [(number: Int32, issue: Int32)] {
        var out: [(number: Int32, issue: Int32)] = []
        for (k, place) in placement.places.enumerated() {
            switch place {
            case .incident(let n): out.append((Int32(n), Int32(k)))
            case .noIncident: out.append((.max, Int32(k)))
            case .tuning: break
            }
        }
        // Positions are unique: the order is total, and a plain sort keeps it.
        out.sort { a, b in (a.number, a.issue) < (b.number, b.issue) }
        return out
    }

    /// The Issues table: incident (a link in HTML), code, uid, detail.
    func issuesTable(_ placed: [(number: Int32, issue: Int32)]) -> LazyReportTable {
        let t = ReportTable(headers: ["incident", "code", "uid", "detail"])
        let issues = analysis.issues
        return LazyReportTable(t, count: placed.count) { k in
            let n = placed[k].number == .max ? nil : Int(placed[k].number), i = issues[Int(placed[k].issue)]
            // `#6` would need escaping in Markdown: the plain forms say `6`.
            return [n.map { .markup(html: HTMLPage.link("#" + AnchorID.incident($0), "#\($0)"), text: String($0)) } ?? .empty(shown: "—"),
                    .markup(html: "<span class=\"code\">\(i.code.rawValue)</span>", text: i.code.rawValue),
                    .markup(html: i.uid.map(uidLink) ?? "—", text: i.uid ?? "—"), .text(i.detail)]
        }
    }

    /// The rule of the Issues section in one sentence.
    static let issuesRule = "Each issue is listed once: under the incident that shows the same trouble (the participant's loss, "
        + "RTT, jitter, tier or disconnect; a track's stalls), the one with the most impact when several do, else in no incident. "
        + "Stalls that began under a good tier are diagnostics of the tier algorithm, under Tier tuning."

    func writeIssuesHTML(_ emit: (String) -> Void) {
        emit("<section id=\"issues\">\n<h2>Issues</h2>\n")
        let placed = placedIssues(issuePlacement)
        guard !placed.isEmpty else { return emit("<p class=\"muted\">None.</p>\n</section>\n") }
        emit("<p class=\"legend\">\(MeetingReport.issuesRule.html)</p>\n")
        emit(HTMLPage.detailsOpening("All \(placed.count) issues, by incident", open: placed.count <= 8))
        issuesTable(placed).writeHTML(emit)
        emit(HTMLPage.detailsClosing + "</section>\n")
    }

    func writeIssuesMarkdown(_ emit: (String) -> Void) {
        emit("## Issues\n\n")
        let placed = placedIssues(issuePlacement)
        guard !placed.isEmpty else { return emit("None.\n") }
        emit(MeetingReport.issuesRule + "\n\n")
        issuesTable(placed).writeMarkdown(emit)
    }

    /// Whether the report has a Tier tuning section: when there are tiers
    /// (a quality feed) or diagnostics to show.
    func hasTuningSection(_ placement: IssuePlacement) -> Bool { hasQualityData || placement.tuningCount > 0 }

    /// The tier's misses per subscriber (from the diagnostics, in their
    /// order): the stalls that began while the recomputed tier was
    /// excellent or good, out of all their stalls, and on which tracks.
    func tuningTable(_ placement: IssuePlacement) -> ReportTable {
        var stallsOf: [String: Int] = [:]
        for s in analysis.subscriptions { stallsOf[s.subscriber, default: 0] += s.stallCount }
        var order: [String] = [], under: [String: Int] = [:], tracks: [String: [String]] = [:]
        for i in placement.tuning {
            guard let uid = i.uid else { continue }
            if under[uid] == nil { order.append(uid) }
            under[uid, default: 0] += i.count ?? 0
            if let t = i.track, !(tracks[uid] ?? []).contains(t) { tracks[uid, default: []].append(t) }
        }
        var t = ReportTable(headers: ["subscriber", "stalls under a good tier", "of their stalls", "tracks"], numeric: [1, 2])
        for uid in order {
            t.add([.markup(html: uidLink(uid), text: uid), .int(under[uid] ?? 0), .int(stallsOf[uid] ?? 0),
                   .text(IncidentText.list(tracks[uid] ?? [], limit: 4))])
        }
        return t
    }

    /// `83 of 412 stalls (20.1%) began under an excellent or good tier.`
    var tuningSentence: String {
        let under = analysis.subscriptions.reduce(0) { $0 + $1.stallsUnderGoodTier }
        let all = analysis.subscriptions.reduce(0) { $0 + $1.stallCount }
        guard all > 0 else { return "No stalls." }
        return "\(under) of \(all) stall\(all == 1 ? "" : "s") (\(ReportText.percent(Double(under) / Double(all)))) "
            + "began under an excellent or good tier."
    }

    static let tuningRule = "Not problems of this call but of the tier algorithm: a stall that began while the recomputed tier "
        + "was excellent or good is one the tier did not warn of (code stalls_under_good_tier). mqa tune scores tier "
        + "configs by such misses."

    var tuningHTML: String {
        let placement = issuePlacement
        guard hasTuningSection(placement) else { return "" }
        var b = "<section id=\"tuning\">\n<h2>Tier tuning</h2>\n<p class=\"legend\">\(MeetingReport.tuningRule.html)</p>\n"
        b += "<p>\(tuningSentence.html)</p>\n"
        if placement.tuningCount == 0 { return b + "</section>\n" }
        let table = tuningTable(placement)
        b += HTMLPage.details("Per subscriber <span class=\"muted\">(\(table.rows.count))</span>", open: table.rows.count <= 8, table.html)
        return b + "</section>\n"
    }

    func tuningMarkdown() -> String {
        let placement = issuePlacement
        guard hasTuningSection(placement) else { return "" }
        let out = "## Tier tuning\n\n\(MeetingReport.tuningRule)\n\n\(tuningSentence)\n\n"
        if placement.tuningCount == 0 { return out }
        return out + tuningTable(placement).markdown + "\n"
    }

    /// The meeting's issue at `i` in JSON, with where the report shows it:
    /// `incident` (its number, 1-based in the `incidents` array, or null)
    /// and `tuning` (true for a tier-tuning diagnostic).
    func issueJSON(_ i: Int) -> JSON {
        let issue = analysis.issues[i], place = issuePlacement.places[i]
        guard case .object(var fields) = issue.json else { return issue.json }
        if case .incident(let n) = place { fields.append(("incident", .int(Int64(n)))) } else { fields.append(("incident", .null)) }
        fields.append(("tuning", .bool(place == .tuning)))
        return .object(fields)
    }
}
