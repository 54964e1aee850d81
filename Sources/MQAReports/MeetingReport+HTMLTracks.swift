import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The Tracks section: one row per published track (with its verdict and,
// in a site, its page), then the long lists collapsed: every subscription,
// the stall timeline, every stall and the context next to them.
extension MeetingReport {
    /// One published track: its subscriptions, in the meeting's order.
    struct PublishedTrack {
        var publisher: String
        var track: String
        var subscriptions: [Subscription]
        var stalledMs: Int64 { subscriptions.reduce(0) { $0 + $1.stalledMs } }
        var stallCount: Int { subscriptions.reduce(0) { $0 + $1.stallCount } }
    }

    /// Published tracks, most stalled time first (ties by publisher, track).
    var publishedTracks: [PublishedTrack] {
        var order: [String: Int] = [:]
        var out: [PublishedTrack] = []
        for s in analysis.subscriptions {
            let key = s.publisher + "\u{0}" + s.track
            if let k = order[key] { out[k].subscriptions.append(s); continue }
            order[key] = out.count
            out.append(PublishedTrack(publisher: s.publisher, track: s.track, subscriptions: [s]))
        }
        return out.sorted { ($1.stalledMs, $0.publisher, $0.track) < ($0.stalledMs, $1.publisher, $1.track) }
    }

    /// Every distinct track id of the meeting's subscriptions, sorted: the
    /// track pages of a site.
    public var trackIDs: [String] { Array(Set(analysis.subscriptions.map(\.track))).sorted() }

    func writeTracksHTML(_ t0: Int64, links: MeetingLinks?, verdicts known: [String: TrackReport.Verdict]? = nil,
                         _ emit: (String) -> Void) {
        emit("<section id=\"tracks\">\n<h2>Tracks</h2>\n")
        let subscriptions = analysis.subscriptions
        guard !subscriptions.isEmpty else { return emit("<p class=\"muted\">No subscriptions.</p>\n</section>\n") }
        let verdicts = known ?? TrackReport.verdicts(meeting: self)
        var pt = ReportTable(headers: ["track", "publisher", "kind", "subscriptions", "stalls", "stalled", "never rendered", "verdict"],
                             numeric: [3, 4, 5, 6])
        for p in publishedTracks {
            let name = HTMLPage.code(p.track)
            let never = p.subscriptions.count(where: \.neverRendered)
            pt.add([.markup(html: links?.tracks[p.track].map { HTMLPage.link($0, name) } ?? name, text: p.track),
                    .markup(html: uidLink(p.publisher), text: p.publisher),
                    .text(p.subscriptions.first { $0.kind != nil }?.kind ?? "—"), .int(p.subscriptions.count),
                    .int(p.stallCount), .text(ReportText.duration(p.stalledMs)), .int(never),
                    .text(verdicts[p.track]?.rawValue ?? "—")],
                   htmlClass: verdicts[p.track] == .senderSide ? "bad" : nil, id: AnchorID.track(p.publisher, p.track))
        }
        var b = "<p class=\"legend\">One row per published track, most stalled first; stalled time is summed over the track's "
        b += "subscriptions. The verdict is the track report's" + (links == nil ? "" : " (the track's name opens it)") + ": "
        emit(b + TrackReport.ruleText.html + "</p>\n" + pt.html)

        let tr = ReportTable(headers: ["subscriber", "publisher", "track", "kind", "subscribed", "first frame",
                                       "stalls", "stalled", "stall ratio", "under good tier", "issues"],
                             numeric: [4, 5, 6, 7, 8, 9])
        let n = subscriptions.count
        emit(HTMLPage.detailsOpening("All \(n) subscriptions <span class=\"muted\">(one per subscriber and track)</span>", open: n <= 8))
        LazyReportTable(tr, count: n) { k in
            let s = subscriptions[k], issues = trackIssueCodes(s)
            return ReportTable.Row(cells: subscriptionCells(s, t0) + [MeetingReport.codeChips(issues)], htmlClass: issues.isEmpty ? nil : "bad")
        }.writeHTML(emit)
        emit(HTMLPage.detailsClosing)

        var timeline = SVGCharts.stallLegend([("#bbbbbb", "loading"), ("#9ecae1", "flowing"), ("#d73027", "stall")],
                                             note: "the small mark under a stall has the colour of the subscriber's tier when it began; "
                                                 + "hover a stall for its track and length.")
        let axis = SVGCharts.TimeAxis(start: timeRange.start, end: timeRange.end, x0: 0, x1: 1, zone: display.clockZone)
        timeline += "<div class=\"chart\">"
        emit(HTMLPage.detailsOpening("Stall timeline <span class=\"muted\">(\(n) rows)</span>", open: n <= 12) + timeline)
        SVGCharts.writeStallTimeline(count: n, { k in
            let s = subscriptions[k]
            return SVGCharts.TrackRow(label: "\(s.subscriber) ← \(s.publisher) · \(s.track)", subscription: s)
        }, axis: axis, caption: "Stall timeline per track", emit)
        emit("</div>\n" + HTMLPage.detailsClosing)

        let stalls = stallPositions
        if !stalls.isEmpty {
            let st = ReportTable(headers: ["subscriber", "track", "start", "end", "length", "tier at start"], numeric: [2, 3, 4])
            emit(HTMLPage.detailsOpening((stalls.count == 1 ? "The 1 stall" : "All \(stalls.count) stalls")
                                             + " <span class=\"muted\">(red rows began under an excellent/good tier)</span>",
                                         open: stalls.count <= 8))
            LazyReportTable(st, count: stalls.count) { k in
                let s = subscriptions[Int(stalls[k].subscription)], x = s.stalls[Int(stalls[k].stall)]
                return ReportTable.Row(cells: stallCells(s, x, t0), htmlClass: x.tier == .excellent || x.tier == .good ? "bad" : nil)
            }.writeHTML(emit)
            emit(HTMLPage.detailsClosing)
        }
        let notes = contextNotes
        if !notes.isEmpty {
            var list = "<ul class=\"notes\">\n"
            for n in notes {
                list += "<li><strong>\(n.subject.html)</strong>: " + n.explanations.map(\.html).joined(separator: "; also ") + "</li>\n"
            }
            emit(HTMLPage.details("What else was happening <span class=\"muted\">(\(notes.count))</span>", open: notes.count <= 8, list + "</ul>\n"))
        }
        emit("</section>\n")
    }
}
