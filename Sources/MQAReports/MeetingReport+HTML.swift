import MQADomain

// The page users open after a bad call: issues first, then who was there and
// how their network was, then charts, then the tracks.
extension MeetingReport {
    /// `mqa report meeting --format html`: one self-contained page.
    public var html: String {
        let t0 = timeRange.start
        let axis = SVGCharts.TimeAxis(start: timeRange.start, end: timeRange.end, x0: 0, x1: 1)
        var b = "<header>\n<h1>\((header.title ?? "Untitled meeting").html)</h1>\n"
        b += "<p class=\"sub\">Meeting <span class=\"code\">\(header.meeting.html)</span></p>\n"
        b += "<dl class=\"facts\">\n"
        func fact(_ k: String, _ v: String) { b += "<div><dt>\(k)</dt><dd>\(v.html)</dd></div>\n" }
        fact("engine", header.engine ?? "—")
        fact("start", header.start.map(ReportText.timestamp) ?? "—")
        fact("end", header.end.map(ReportText.timestamp) ?? "—")
        fact("duration", header.durationMs.map(ReportText.duration) ?? "—")
        fact("participants", String(header.participants))
        fact("issues", String(analysis.issues.count))
        b += "</dl>\n</header>\n"
        if !damage.isEmpty {
            b += "<p class=\"notice\"><strong>Warning: \(damageNotice.html)</strong></p>\n<ul>\n"
            for d in damage { b += "<li>\(d.html)</li>\n" }
            b += "</ul>\n"
        }
        if !hasQualityData {
            b += "<p class=\"notice\">\(MeetingReport.noQualityData.capitalizedFirst): this meeting ran on the CDN engine, which has no quality feed. "
            b += "MOS, loss, RTT, jitter, bitrate and tiers are not shown; the stalls come from the track status events.</p>\n"
        }

        b += "<section>\n<h2>Issues</h2>\n"
        if analysis.issues.isEmpty {
            b += "<p class=\"muted\">None.</p>\n"
        } else {
            var t = HTMLTable(headers: ["code", "uid", "detail"])
            for i in analysis.issues {
                t.addMarkup(["<span class=\"code\">\(i.code.rawValue)</span>", (i.uid ?? "—").html, i.detail.html])
            }
            b += t.rendered
        }
        b += "</section>\n"

        b += "<section>\n<h2>Participants</h2>\n"
        var conn = HTMLTable(headers: ["uid", "connections", "disconnects", "abnormal", "reconnects", "warm reports", "cold reports"],
                             numeric: [1, 2, 3, 4, 5, 6])
        for p in analysis.participants {
            let abnormal = p.disconnects.count { $0.error != nil }
            conn.add([p.uid, String(p.connections), String(p.disconnects.count), String(abnormal), String(p.reconnects),
                      String(p.warmReports), String(p.coldReports)], rowClass: abnormal > 0 ? "bad" : nil)
        }
        b += conn.rendered
        if hasQualityData {
            b += "<h3>Quality (warm reports)</h3>\n"
            var q = HTMLTable(headers: ["uid", "MOS mean", "p5", "p50", "p95", "loss % mean", "p95", "RTT ms mean", "p95",
                                        "jitter ms mean", "p95", "kbps mean", "p5"], numeric: Set(1...12))
            for p in analysis.participants {
                func n(_ x: Double?) -> String { ReportText.number(x) }
                q.add([p.uid, n(p.mos?.mean), n(p.mos?.p5), n(p.mos?.p50), n(p.mos?.p95),
                       n(p.lossPct?.mean), n(p.lossPct?.p95), n(p.rttMs?.mean), n(p.rttMs?.p95),
                       n(p.jitterMs?.mean), n(p.jitterMs?.p95), n(p.bitrateKbps?.mean), n(p.bitrateKbps?.p5)])
            }
            b += q.rendered
            b += "<h3>Time per tier</h3>\n"
            var tt = HTMLTable(headers: ["uid"] + Tier.reportOrder.map(\.name) + ["changes", "flaps", "SDK agreement"],
                               numeric: Set(1...9))
            for p in analysis.participants {
                tt.add([p.uid] + Tier.reportOrder.map { ReportText.duration(p.tierMs[$0]) }
                       + [String(p.tierChanges), String(p.flaps), ReportText.percent(p.sdkTierAgreement)])
            }
            b += tt.rendered
            let bars = analysis.participants.map { p in
                SVGCharts.Bar(label: p.uid, parts: Tier.reportOrder.map { t in
                    (HTMLPage.colour(t), Double(p.tierMs[t]), "\(p.uid): \(t.name) \(ReportText.duration(p.tierMs[t]))")
                }, note: ReportText.duration(p.tierMs.total))
            }
            b += "<figure>\n<figcaption>Connected time per tier</figcaption>\n"
            b += SVGCharts.stackedBars(bars, scale: Double(max(header.durationMs ?? 1, 1)), caption: "Connected time per tier, per participant")
            b += HTMLPage.tierLegend + "</figure>\n"
        }
        let disconnects = analysis.participants.flatMap { p in p.disconnects.map { (p.uid, $0) } }
        if !disconnects.isEmpty {
            b += "<h3>Disconnects</h3>\n"
            var d = HTMLTable(headers: ["uid", "at", "reason", "error"])
            for (uid, x) in disconnects {
                d.add([uid, ReportText.offset(x.ts, from: t0), x.reason, x.error ?? "—"], rowClass: x.error != nil ? "bad" : nil)
            }
            b += d.rendered
        }
        b += "</section>\n"

        b += contextHTML(t0)

        if hasQualityData {
            b += "<section>\n<h2>Quality over time</h2>\n"
            b += "<p class=\"legend\">MOS of every warm report on the tier bands of the config (thresholds "
            b += analysis.config.thresholds.map { JSON.number($0) }.joined(separator: ", ")
            b += "); the strip under it is the recomputed tier; red shading marks the participant's video stalls; "
            b += "dashed grey lines mark context events (hover for what happened). "
            b += "Loss and RTT below, with the issue thresholds dashed. Time axis: minutes from the start.</p>\n"
            b += HTMLPage.tierLegend
            for s in series {
                let stalls = analysis.subscriptions.filter { $0.subscriber == s.uid }.flatMap(\.stalls)
                b += "<figure>\n<figcaption>\(s.uid.html)</figcaption>\n"
                let marks = context.participant(s.uid).map { p in
                    contextRows(p).map { (ts: $0.ts, label: ReportText.offset($0.ts, from: t0) + " " + $0.what) }
                } ?? []
                b += SVGCharts.mosChart(s, timeline: analysis.timelines[s.uid], stalls: stalls,
                                        thresholds: analysis.config.thresholds, axis: axis, marks: marks)
                b += SVGCharts.metricChart(s, value: \.loss, name: "loss %", unit: "%", floor: 2,
                                           threshold: IssueThresholds.lossP95Pct, axis: axis)
                b += SVGCharts.metricChart(s, value: \.rtt, name: "RTT ms", unit: "ms", floor: 100,
                                           threshold: IssueThresholds.rttP95Ms, axis: axis)
                b += "</figure>\n"
            }
            b += "</section>\n"
        }

        b += "<section>\n<h2>Tracks</h2>\n"
        if analysis.subscriptions.isEmpty {
            b += "<p class=\"muted\">No subscriptions.</p>\n"
        } else {
            var tr = HTMLTable(headers: ["subscriber", "publisher", "track", "kind", "subscribed", "first frame",
                                         "stalls", "stalled", "stall ratio", "under good tier", "issues"],
                               numeric: [4, 5, 6, 7, 8, 9])
            for s in analysis.subscriptions {
                let issues = trackIssueCodes(s)
                tr.addMarkup([s.subscriber.html, s.publisher.html, s.track.html, (s.kind ?? "—").html,
                              ReportText.offset(s.subscribeTs, from: t0),
                              s.timeToFirstFrameMs.map { "\($0) ms" } ?? "never",
                              String(s.stallCount), ReportText.duration(s.stalledMs),
                              ReportText.percent(s.stallRatio, places: 2), String(s.stallsUnderGoodTier),
                              issues.map { "<span class=\"code\">\($0.rawValue)</span>" }.joined(separator: " ")],
                             rowClass: issues.isEmpty ? nil : "bad")
            }
            b += tr.rendered
            b += "<figure>\n<figcaption>Stall timeline</figcaption>\n"
            let rows = analysis.subscriptions.map {
                SVGCharts.TrackRow(label: "\($0.subscriber) ← \($0.publisher) · \($0.track)", subscription: $0)
            }
            b += SVGCharts.stallTimeline(rows, axis: axis, caption: "Stall timeline per track")
            b += "<p class=\"legend\"><span class=\"key\"><span class=\"swatch\" style=\"background:#bbbbbb\"></span>loading</span> "
            b += "<span class=\"key\"><span class=\"swatch\" style=\"background:#9ecae1\"></span>flowing</span> "
            b += "<span class=\"key\"><span class=\"swatch\" style=\"background:#d73027\"></span>stall</span> "
            b += "the small mark under a stall has the colour of the subscriber's tier when it began.</p>\n"
            b += "</figure>\n"
            let stalls = analysis.subscriptions.flatMap { s in s.stalls.map { (s, $0) } }
            if !stalls.isEmpty {
                b += "<h3>Stalls</h3>\n"
                var st = HTMLTable(headers: ["subscriber", "track", "start", "end", "length", "tier at start"], numeric: [2, 3, 4])
                for (s, x) in stalls {
                    st.add([s.subscriber, s.track, ReportText.offset(x.start, from: t0),
                            ReportText.offset(x.end, from: t0) + (x.open ? " (open)" : ""),
                            ReportText.duration(x.durationMs), x.tier.name],
                           rowClass: x.tier == .excellent || x.tier == .good ? "bad" : nil)
                }
                b += st.rendered
            }
            let notes = contextNotes
            if !notes.isEmpty {
                b += "<h3>What else was happening</h3>\n<ul class=\"notes\">\n"
                for n in notes {
                    b += "<li><strong>\(n.subject.html)</strong>: " + n.explanations.map(\.html).joined(separator: "; also ") + "</li>\n"
                }
                b += "</ul>\n"
            }
        }
        b += "</section>\n"
        b += "<footer>Generated by mqa from the event logs. Times are offsets from the meeting's start ("
        b += (header.start.map(ReportText.timestamp) ?? "—") + "); statistics are over warm reports; percentiles are nearest-rank.</footer>"
        return HTMLPage.document(title: "Meeting \(header.meeting)" + (header.title.map { " — \($0)" } ?? ""), body: b)
    }
}

extension MeetingReport {
    /// The Context section of the page (see `contextMarkdown`).
    func contextHTML(_ t0: Int64) -> String {
        let people = context.participants.filter { $0.talkMs > 0 || $0.handups > 0 || $0.hasItems }
        guard !people.isEmpty || !context.shares.isEmpty || !context.subMeetingMoves.isEmpty else { return "" }
        var b = "<section>\n<h2>Context</h2>\n"
        b += "<p class=\"legend\">What the speaker snapshots and the context events say; none of it changes a figure on this page.</p>\n"
        if !people.isEmpty {
            var t = HTMLTable(headers: ["uid", "talk time", "hands raised", "media changes", "audio routes",
                                        "interruptions", "device changes"], numeric: Set(1...6))
            for p in people {
                t.add([p.uid, ReportText.duration(p.talkMs), String(p.handups), String(p.mediaChanges.count),
                       String(p.audioRoutes.count), String(p.interruptions.count), String(p.devices.count)])
            }
            b += t.rendered
        }
        for p in people where p.hasItems {
            b += "<h3>\(p.uid.html)</h3>\n"
            var t = HTMLTable(headers: ["at", "what"])
            for r in contextRows(p) { t.add([ReportText.offset(r.ts, from: t0), r.what]) }
            b += t.rendered
        }
        if !context.shares.isEmpty {
            b += "<h3>Shares</h3>\n"
            var t = HTMLTable(headers: ["publisher", "kind", "start", "end"])
            for s in context.shares {
                t.add([s.publisher, s.kind.rawValue, ReportText.offset(s.startTs, from: t0),
                       s.endTs.map { ReportText.offset($0, from: t0) } ?? "(not stopped)"])
            }
            b += t.rendered
        }
        if !context.subMeetingMoves.isEmpty {
            b += "<h3>Moves to sub-meetings</h3>\n"
            var t = HTMLTable(headers: ["at", "uid", "target", "reason"])
            for m in context.subMeetingMoves { t.add([ReportText.offset(m.ts, from: t0), m.uid, m.target, m.reason ?? "—"]) }
            b += t.rendered
        }
        return b + "</section>\n"
    }
}

extension String {
    /// The string with its first character upper-cased.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
