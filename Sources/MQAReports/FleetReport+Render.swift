import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension FleetReport {
    /// Score rounded to 0.1 for display and JSON.
    static func rounded(_ x: Double) -> Double { (x * 10).rounded() / 10 }

    /// `"video_stalls ×2, low_mos ×1"`, in the order of `IssueCode.allCases`.
    static func issueSummary(_ counts: [IssueCode: Int]) -> String {
        IssueCode.allCases.compactMap { c in counts[c].map { "\(c.rawValue) ×\($0)" } }.joined(separator: ", ")
    }

    /// The JSON's `schema`.
    public static let schema = "mqa.fleet/1"

    /// The normalized figure, rounded as the score is; nil without one.
    static func perParticipantHour(_ e: FleetEntry) -> Double? { e.scorePerParticipantHour.map(rounded) }

    /// `mqa report fleet --format json`. `meetings` is a count here as in
    /// every JSON of mqa (and the cohorts of the spec); the array of
    /// meetings is `ranked`.
    public var json: JSON {
        .object([
            ("schema", .string(FleetReport.schema)),
        ] + config.jsonMember("config") + [
            ("score", .string(FleetReport.scoreRule)),
            ("rankedBy", .string("score")),
            ("scorePerParticipantHour", .string(FleetScore.perParticipantHourRule)),
            ("meetings", .int(Int64(meetingCount))),
            ("shown", .int(Int64(ranked.count))),
            ("issueCounts", .object(IssueCode.allCases.map { c in
                let t = issueTotals[c] ?? (0, 0)
                return (c.rawValue, .object([("issues", .int(Int64(t.issues))), ("meetings", .int(Int64(t.meetings)))]))
            })),
            ("ranked", .array(ranked.enumerated().map { i, e in
                var fields: [(String, JSON)] = [
                    ("rank", .int(Int64(i + 1))),
                    ("meeting", .string(e.header.meeting)),
                    ("title", .optional(e.header.title)),
                    ("engine", .optional(e.header.engine)),
                    ("start", .optional(e.header.start)),
                    ("durationMs", .optional(e.header.durationMs)),
                    ("participants", .int(Int64(e.header.participants))),
                    ("platforms", FleetClientMix.json(e.clients.platforms)),
                    ("sdkVersions", FleetClientMix.json(e.clients.sdkVersions)),
                    ("score", .double(FleetReport.rounded(e.score))),
                    ("scorePerParticipantHour", FleetReport.perParticipantHour(e).map { .double($0) } ?? .null),
                    ("stalledMs", .int(e.stalledMs)),
                    ("lowTierMs", .optional(e.lowTierMs)),
                    ("qualityData", .bool(e.lowTierMs != nil)),
                    ("abnormalDisconnects", .int(Int64(e.abnormalDisconnects))),
                    ("issues", .object(IssueCode.allCases.compactMap { c in e.issueCounts[c].map { (c.rawValue, .int(Int64($0))) } })),
                ]
                if let files { fields.append(("file", .optional(files[e.header.meeting]))) }
                return .object(fields)
            })),
        ])
    }

    /// `mqa report fleet --format md`: the ranking as a table of short
    /// cells; each meeting's issue counts as a list under it (in a column
    /// they made every row hundreds of characters wide).
    public var markdown: String {
        var out = ""
        writeMarkdown { out += $0 }
        return out
    }

    /// Writes md and csv as they are made, a row at a time: a fleet of
    /// 50,000 meetings held 30 MB of table cells and the 13 MB text whole.
    public func write(_ format: ReportFormat, to out: OutputSink) {
        switch format {
        case .md: writeMarkdown { out.write($0) }
        case .csv: writeCSV { out.write($0) }
        default: out.write(render(format))
        }
    }

    /// `markdown`, in pieces to `emit`.
    func writeMarkdown(_ emit: (String) -> Void) {
        var out = "# Fleet: \(meetingCount) meetings, worst first\n\n"
        out += "Score = \(FleetReport.scoreRule); ranked by the score. \(FleetReport.normalizedNote)\n\n"
        out += FleetReport.stalledNote + "\n\n"
        out += ConfigNote.paragraph(config)
        if ranked.count < meetingCount { out += "Showing the worst \(ranked.count).\n\n" }
        emit(out)
        rankingTable(issues: false).writeMarkdown(rows: ranked.count, { i in
            let e = ranked[i]
            // A link's target is a file name we made safe.
            return [.int(i + 1), files?[e.header.meeting].map { .link(e.header.meeting, href: $0) } ?? .text(e.header.meeting)]
                + rankingCells(e).dropLast()
        }, emit)
        out = ""
        var listed = false
        for (i, e) in ranked.enumerated() where !e.issueCounts.isEmpty {
            if !listed { out += "\n## Issues per meeting\n\n"; listed = true }
            out += "- #\(i + 1) \(Markdown.escape(e.header.meeting)): \(FleetReport.issueSummary(e.issueCounts))\n"
            if out.utf8.count >= 1 << 16 { emit(out); out = "" }
        }
        out += "\n## Issue codes (all \(meetingCount) meetings)\n\n"
        out += issueCodesTable.markdown
        emit(out)
    }

    /// Why "stalled" can exceed a meeting's duration, said once per page.
    static let stalledNote = "Stalled = video stall time summed over every subscription (each viewer of each track), so it can "
        + "exceed the meeting's duration. Poor/bad = warm time at those tiers summed over participants; a CDN meeting has "
        + "no quality data (no tiers), shown as such rather than as 0."

    /// `2026-11-01 09:35` (UTC), or `—`.
    static func startText(_ start: Int64?) -> String {
        start.map { String(ReportText.dateTime($0).prefix(16)) } ?? "—"
    }

    /// `startText` as a table cell that breaks, if it must, between the
    /// date and the time, never inside the date.
    static func startCell(_ start: Int64?) -> ReportCell { nowrapParts(startText(start)) }

    /// `text` as a cell that may break at its spaces only (a date, a
    /// clock, an offset each stay whole).
    static func nowrapParts(_ text: String) -> ReportCell {
        let parts = text.split(separator: " ")
        guard parts.count > 1 else { return .text(text) }
        return .markup(html: parts.map { HTMLPage.nowrap(String($0)) }.joined(separator: " "), text: text)
    }

    /// `ios:3;android:2` (empty when none is known): one cell a script splits.
    static func csvMix(_ counts: [FleetClientMix.Count]) -> String {
        counts.map { "\($0.value):\($0.participants)" }.joined(separator: ";")
    }

    /// Poor/bad time, or "no quality data" on the CDN engine.
    static func lowTierText(_ ms: Int64?) -> String { ms.map(ReportText.duration) ?? "no quality data" }

    /// `mqa report fleet --format csv`: one row per ranked meeting, one
    /// column per issue code (occurrences), plus `file` in a batch index.
    public var csv: String {
        var out = ""
        writeCSV { out += $0 }
        return out
    }

    /// `csv`, in pieces to `emit`.
    func writeCSV(_ emit: (String) -> Void) {
        var head = ["rank", "meeting", "title", "engine", "start", "durationMs", "participants", "platforms", "sdkVersions",
                    "score", "scorePerParticipantHour",
                    "stalledMs", "lowTierMs", "abnormalDisconnects"] + IssueCode.allCases.map(\.rawValue)
        if files != nil { head.append("file") }
        // Added last, so that the columns before keep their places.
        head.append("qualityData")
        var out = head.joined(separator: ",") + "\n"
        for (i, e) in ranked.enumerated() {
            var row = [String(i + 1), CSV.cell(e.header.meeting), CSV.cell(e.header.title ?? ""), CSV.cell(e.header.engine ?? ""),
                       e.header.start.map { String($0) } ?? "", e.header.durationMs.map { String($0) } ?? "", String(e.header.participants),
                       CSV.cell(FleetReport.csvMix(e.clients.platforms)), CSV.cell(FleetReport.csvMix(e.clients.sdkVersions)),
                       CSV.number(FleetReport.rounded(e.score)), FleetReport.perParticipantHour(e).map(CSV.number) ?? "", String(e.stalledMs), e.lowTierMs.map { String($0) } ?? "",
                       String(e.abnormalDisconnects)]
            row += IssueCode.allCases.map { String(e.issueCounts[$0] ?? 0) }
            if let files { row.append(CSV.cell(files[e.header.meeting] ?? "")) }
            row.append(e.lowTierMs != nil ? "true" : "false")
            out += row.joined(separator: ",") + "\n"
            if out.utf8.count >= 1 << 16 { emit(out); out = "" }
        }
        emit(out)
    }

    /// `mqa report fleet --format html` (and `index.html` of a batch, where
    /// each meeting links its page): the ranking first, then what the
    /// scores are made of, then the issue codes.
    public var html: String {
        var b = "<header>\n<h1>Fleet: \(meetingCount) meetings, worst first</h1>\n"
        b += "<p class=\"sub\">Score = \(FleetReport.scoreRule.html); ranked by the score. \(FleetReport.normalizedNote.html)</p>\n</header>\n"
        b += ConfigNote.htmlParagraph(config)
        if !sitePages.isEmpty {
            b += "<nav><p>" + sitePages.map { HTMLPage.link($0.file, $0.title.html) }.joined(separator: " · ") + "</p></nav>\n"
        }
        if ranked.count < meetingCount { b += "<p class=\"muted\">Showing the worst \(ranked.count).</p>\n" }
        b += "<h2>Ranking</h2>\n"
        if files != nil { b += "<p class=\"legend\">Each meeting id opens its report.</p>\n" }
        if let page = participantsPage {
            b += "<p class=\"legend\">Looking for one person? " + HTMLPage.link(page, "Participants") + " lists each participant's meetings.</p>\n"
        }
        func table(_ entries: ArraySlice<(offset: Int, element: FleetEntry)>) -> String {
            var t = rankingTable(issues: true)
            for (i, e) in entries {
                let id = HTMLPage.code(e.header.meeting)
                t.add([.int(i + 1), .markup(html: files?[e.header.meeting].map { HTMLPage.link($0, id) } ?? id, text: e.header.meeting)]
                      + rankingCells(e))
            }
            return t.html
        }
        let all = Array(ranked.enumerated())
        b += table(all.prefix(FleetReport.shownOpen))
        if all.count > FleetReport.shownOpen {
            b += HTMLPage.details("The other \(all.count - FleetReport.shownOpen) meetings", table(all.dropFirst(FleetReport.shownOpen)))
        }
        var list = "<ul>\n"
        for (i, e) in all where !e.issueCounts.isEmpty {
            let id = HTMLPage.code(e.header.meeting)
            list += "<li>#\(i + 1) " + (files?[e.header.meeting].map { HTMLPage.link($0, id) } ?? id) + ": "
            list += FleetReport.issueSummary(e.issueCounts).html + "</li>\n"
        }
        b += HTMLPage.details("Issue codes per meeting", list + "</ul>\n")
        b += "<p class=\"legend\">\(FleetReport.stalledNote.html)</p>\n"
        let chart = ranked.prefix(20).map { e in
            SVGCharts.Bar(label: e.header.meeting, parts: [
                ("#d73027", Double(e.stalledMs) / 1000, "\(e.header.meeting): stalled \(ReportText.duration(e.stalledMs))"),
                ("#fc8d59", Double(e.lowTierMs ?? 0) / 1000, "\(e.header.meeting): poor/bad \(FleetReport.lowTierText(e.lowTierMs))"),
                ("#542788", FleetReport.secondsPerAbnormalDisconnect * Double(e.abnormalDisconnects),
                 "\(e.header.meeting): \(e.abnormalDisconnects) abnormal disconnects"),
            ], note: "score " + ReportText.number(FleetReport.rounded(e.score), places: 1))
        }
        if !chart.isEmpty {
            b += "<h2>What the score is made of\(ranked.count > 20 ? " (worst 20)" : "")</h2>\n<figure>\n"
            b += "<p class=\"legend\"><span class=\"key\"><span class=\"swatch\" style=\"background:#d73027\"></span>stalled s</span> "
            b += "<span class=\"key\"><span class=\"swatch\" style=\"background:#fc8d59\"></span>poor/bad s</span> "
            b += "<span class=\"key\"><span class=\"swatch\" style=\"background:#542788\"></span>\(JSON.number(FleetScore.secondsPerAbnormalDisconnect)) s per abnormal disconnect</span></p>\n"
            b += "<div class=\"chart\">" + SVGCharts.stackedBars(chart, caption: "Score components per meeting") + "</div>\n</figure>\n"
        }
        b += "<h2>Issue codes (all \(meetingCount) meetings)</h2>\n"
        b += issueCodesTable.html
        return HTMLPage.document(title: "mqa fleet report", body: b)
    }

    /// A ranked meeting's cells after its rank and id; the last, its issue
    /// count with the codes on hover, is shown in HTML only (Markdown lists
    /// the codes under the table).
    func rankingCells(_ e: FleetEntry) -> [ReportCell] {
        let count = e.issueCounts.values.reduce(0, +)
        let local: [ReportCell] = display.zone.map { z in [FleetReport.nowrapParts(e.header.start.map { z.dateTime($0).prefix(16) + " " + z.offsetText(at: $0) } ?? "—")] } ?? []
        return [FleetReport.startCell(e.header.start)] + local + [.text(e.header.title ?? "—"), .text(e.header.engine ?? "—"),
                FleetClientMix.cell(e.clients.platforms), FleetClientMix.cell(e.clients.sdkVersions), .int(e.header.participants),
                .text(e.header.durationMs.map(ReportText.duration) ?? "—"), .text(ReportText.number(FleetReport.rounded(e.score), places: 1)),
                .text(FleetReport.perParticipantHour(e).map { ReportText.number($0, places: 1) } ?? "—"),
                .text(ReportText.duration(e.stalledMs)), .text(FleetReport.lowTierText(e.lowTierMs)), .int(e.abnormalDisconnects),
                .markup(html: "<span title=\"\(FleetReport.issueSummary(e.issueCounts).html)\">\(count)</span>", text: String(count))]
    }

    /// The ranking's table, headed for md (`issues: false`, the codes go
    /// under it) or html (an issue count column).
    func rankingTable(issues: Bool) -> ReportTable {
        let text: Set<String> = ["meeting", "start (UTC)", "title", "engine", "platforms", "SDK"]
        let headers = ["#", "meeting", "start (UTC)"] + localColumn
            + ["title", "engine", "platforms", "SDK", "people", "duration", "score", "per p-h", "stalled", "poor/bad", "abn. disc."] + (issues ? ["issues"] : [])
        return ReportTable(columns: headers.map { ReportTable.Column($0, numeric: !text.contains($0) && !$0.hasPrefix("start (")) })
    }

    /// Which figure ranks, and what the normalized column is.
    static let normalizedNote = "Per p-h = " + FleetScore.perParticipantHourRule
        + ", to compare meetings of different size and length; it does not rank."

    /// `["start (Europe/Berlin)"]` with a zone, else nothing.
    var localColumn: [String] { display.zone.map { ["start (\($0.identifier))"] } ?? [] }

    /// Issues and meetings per issue code, over every meeting.
    var issueCodesTable: ReportTable {
        var t = ReportTable(headers: ["code", "issues", "meetings"], numeric: [1, 2])
        for code in IssueCode.allCases {
            let v = issueTotals[code] ?? (0, 0)
            t.add([.markup(html: "<span class=\"code\">\(code.rawValue)</span>", text: code.rawValue), .int(v.issues), .int(v.meetings)])
        }
        return t
    }

    /// Ranking rows shown before the rest is collapsed.
    static let shownOpen = 50
}
