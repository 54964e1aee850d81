import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension TrackReport {
    /// `mqa report track --format json`.
    public var json: JSON { .object(jsonHead + [("subscribers", .array(rows.map(Self.json)))]) }

    /// Streams the JSON a subscriber at a time (see `RenderedReport.write`):
    /// each stall lists every other viewer that lined up with it, so a
    /// 2,000-viewer webinar's track makes 340 MB, which as one tree and
    /// one text took 2 GB.
    public func write(_ format: ReportFormat, to out: OutputSink) {
        guard format == .json else { out.write(render(format)); return }
        var w = JSONStreamWriter(out, pretty: true)
        w.beginObject()
        for (key, value) in jsonHead { w.value(value, key: key) }
        w.beginArray(key: "subscribers")
        for r in rows { w.value(Self.json(r)) }
        w.end()
        w.end()
        w.finish()
        out.write("\n")
    }

    /// The JSON's members before `subscribers`.
    private var jsonHead: [(String, JSON)] {
        [
            ("schema", .string(TrackReport.schema)),
        ] + config.jsonMember("config") + [
            ("meeting", .string(header.meeting)),
            ("title", .optional(header.title)),
            ("engine", .optional(header.engine)),
            ("track", .string(track)),
            ("publishers", .array(publishers.map { .string($0) })),
            ("verdict", .string(verdict.rawValue)),
            ("rule", .string(TrackReport.ruleText)),
            ("toleranceMs", .int(TrackReport.alignmentToleranceMs)),
            ("stallCount", .int(Int64(stallCount))),
            ("sharedStallCount", .int(Int64(sharedStallCount))),
        ]
    }

    /// One element of `subscribers`.
    private static func json(_ r: Row) -> JSON {
        let s = r.subscription
        return .object([
            ("subscriber", .string(s.subscriber)),
            ("publisher", .string(s.publisher)),
            ("kind", .optional(s.kind)),
            ("subscribeTs", .int(s.subscribeTs)),
            ("endTs", .int(s.endTs)),
            ("firstFrameTs", .optional(s.firstFrameTs)),
            ("timeToFirstFrameMs", .optional(s.timeToFirstFrameMs)),
            ("stallCount", .int(Int64(s.stallCount))),
            ("sharedStallCount", .int(Int64(r.sharedStallCount))),
            ("stalledMs", .int(s.stalledMs)),
            ("stallRatio", .rounded(s.stallRatio, places: JSON.Places.ratio)),
            // No stall, nothing to attribute: null, not the dash md shows.
            ("attribution", r.subscription.stalls.isEmpty ? .null : .string(r.attribution)),
            ("stalls", .array(s.stalls.indices.map { k in
                let x = s.stalls[k]
                return .object([
                    ("start", .int(x.start)), ("end", .int(x.end)), ("open", .bool(x.open)),
                    ("tier", .string(x.tier.name)),
                ] + sharedWithJSON(r.sharedWith(stall: k, first: TrackReport.jsonNamesPerStall)))
            })),
        ])
    }

    /// `mqa report track --format md`.
    public var markdown: String {
        var out = "# Track \(MarkdownText.inline(track)) in meeting \(MarkdownText.inline(header.meeting))\n\n"
        out += "Publisher: \(MarkdownText.inline(publishers.joined(separator: ", "))) · title: \(MarkdownText.inline(header.title ?? "—"))"
        out += " · start \(header.start.map(display.timestamp) ?? "—")\n\n"
        out += "**Verdict: \(verdict.rawValue)**: \(verdict.explanation) (\(sharedStallCount) of \(stallCount.counted("stall")) shared).\n\n"
        out += "Rule: \(TrackReport.ruleText)\n\n"
        out += ConfigNote.paragraph(config)
        out += subscriptionsTable.markdown
        let stalls = stallsTable
        if !stalls.rows.isEmpty { out += "\n## Stalls\n\n" + stalls.markdown }
        return out
    }

    /// `mqa report track --format csv`: one row per subscription of the
    /// track; `verdict` repeats the track's verdict on every row.
    public var csv: String {
        var out = "meeting,track,publisher,subscriber,kind,subscribeTs,endTs,firstFrameTs,timeToFirstFrameMs,"
            + "stallCount,sharedStallCount,stalledMs,stallRatio,attribution,verdict\n"
        for r in rows {
            let s = r.subscription
            out += [CSV.cell(header.meeting), CSV.cell(track), CSV.cell(s.publisher), CSV.cell(s.subscriber),
                    CSV.cell(s.kind ?? ""), String(s.subscribeTs), String(s.endTs),
                    s.firstFrameTs.map { String($0) } ?? "", s.timeToFirstFrameMs.map { String($0) } ?? "",
                    String(s.stallCount), String(r.sharedStallCount), String(s.stalledMs), CSV.number(MeetingReport.round(s.stallRatio, JSON.Places.ratio)),
                    CSV.cell(r.subscription.stalls.isEmpty ? "" : r.attribution), CSV.cell(verdict.rawValue)].joined(separator: ",") + "\n"
        }
        return out
    }

    /// `mqa report track --format html`.
    public var html: String { html(links: nil) }

    /// The page; with `links` (a report site) it links back to its meeting
    /// and the fleet page.
    public func html(links: TrackLinks?) -> String {
        var b = ""
        if let links {
            b += "<nav class=\"crumbs\">" + HTMLPage.link(links.meeting, "← Meeting " + (header.title ?? header.meeting).html)
            b += HTMLPage.link(links.index, "All meetings (fleet)") + "</nav>\n"
        }
        b += "<header>\n<h1>Track \(HTMLPage.code(track))</h1>\n"
        b += "<p class=\"sub\">Meeting \(HTMLPage.code(header.meeting))"
        if let title = header.title { b += " · \(title.html)" }
        b += " · published by \(publishers.joined(separator: ", ").html)</p>\n</header>\n"
        b += ConfigNote.htmlParagraph(config)
        b += "<p class=\"notice\">Verdict: \(verdict.rawValue.html). \(verdict.explanation.capitalizedFirst.html) "
        b += "(\(sharedStallCount) of \(stallCount.counted("stall")) shared).</p>\n"
        b += "<p class=\"legend\">\(TrackReport.ruleText.html)</p>\n"
        let start = header.start ?? 0
        let axis = SVGCharts.TimeAxis(start: start, end: max(header.end ?? start, start + 1), x0: 0, x1: 1, zone: display.clockZone)
        let rowsSVG = rows.map { r in
            SVGCharts.TrackRow(label: r.subscription.subscriber, subscription: r.subscription, stallColour: { x in
                let i = r.subscription.stalls.firstIndex(of: x) ?? 0
                return r.shared[i] ? "#a50026" : "#fc8d59"
            })
        }
        b += "<figure>\n<figcaption>Each subscriber's view of the track</figcaption>\n"
        b += SVGCharts.stallLegend([("#a50026", "shared stall"), ("#fc8d59", "own stall"), ("#bbbbbb", "loading"), ("#9ecae1", "flowing")],
                                   note: "hover a stall for its length and tier.")
        b += "<div class=\"chart\">" + SVGCharts.stallTimeline(rowsSVG, axis: axis, caption: "Stall timeline of the track per subscriber") + "</div>\n"
        b += "</figure>\n"
        b += "<h2>Subscriptions</h2>\n"
        b += subscriptionsTable.html
        let stalls = stallsTable
        if !stalls.rows.isEmpty {
            b += "<h2>Stalls</h2>\n"
            b += HTMLPage.details(stalls.rows.count == 1 ? "The 1 stall" : "All \(stalls.rows.count) stalls", open: stalls.rows.count <= 10, stalls.html)
        }
        b += "<footer>Times are offsets from the meeting's start (\(header.start.map(display.timestamp) ?? "—")); chart clocks are \(display.clockName(at: start)).</footer>"
        return HTMLPage.document(title: "Track \(track) — meeting \(header.meeting)", body: b)
    }

    /// One row per subscription of the track.
    var subscriptionsTable: ReportTable {
        var t = ReportTable(headers: ["subscriber", "publisher", "subscribed", "first frame", "stalls", "shared",
                                      "stalled", "stall ratio", "attribution"], numeric: [2, 3, 4, 5, 6, 7])
        for r in rows {
            let s = r.subscription
            t.add([.text(s.subscriber), .text(s.publisher), .text(ReportText.offset(s.subscribeTs, from: origin)),
                   .text(s.timeToFirstFrameMs.map { "\($0) ms" } ?? "never"), .int(s.stallCount), .int(r.sharedStallCount),
                   .text(ReportText.duration(s.stalledMs)), .text(ReportText.percent(s.stallRatio, places: 2)), .text(r.attribution)])
        }
        return t
    }

    /// Subscribers named in a stall's "lines up with" cell before "and N
    /// more": in a webinar every viewer stalls with every other, and the
    /// md of 4,000 viewers listed 3,999 names per stall (145 MB).
    static let namesPerStall = 10

    /// Subscribers a stall's `sharedWith` names in JSON, with all of them
    /// counted in `sharedWithCount`: every name of every stall made a
    /// 20,000-viewer webinar's track JSON 34 GB (7.5 minutes to write).
    /// The stalls of everyone are in the JSON, so the rest can be found
    /// with `toleranceMs`.
    static let jsonNamesPerStall = 100

    /// `sharedWith` (the first `jsonNamesPerStall`) and `sharedWithCount`.
    private static func sharedWithJSON(_ who: (names: [String], count: Int)) -> [(String, JSON)] {
        [("sharedWith", .array(who.names.map { .string($0) })), ("sharedWithCount", .int(Int64(who.count)))]
    }

    /// Every stall of the track, with the subscribers it lines up with.
    var stallsTable: ReportTable {
        var t = ReportTable(headers: ["subscriber", "start", "end", "length", "tier at start", "lines up with"], numeric: [1, 2, 3])
        for r in rows {
            for (k, x) in r.subscription.stalls.enumerated() {
                let who = r.sharedWith(stall: k, first: TrackReport.namesPerStall)
                let compared = k < r.compared.count ? r.compared[k] : true
                t.add(text: [r.subscription.subscriber, ReportText.offset(x.start, from: origin),
                             ReportText.offset(x.end, from: origin) + (x.open ? " (open)" : ""),
                             ReportText.duration(x.durationMs), x.tier.name,
                             who.count > 0 ? IncidentText.list(who.names, of: who.count)
                                 : compared ? "— (own)" : "— (no other viewer)"])
            }
        }
        return t
    }
}
