import MQADomain

extension MeetingReport {
    /// The Context section of the page (see `contextMarkdown`).
    func contextHTML(_ t0: Int64) -> String {
        let people = context.participants.filter { $0.talkMs > 0 || $0.handups > 0 || $0.hasItems }
        guard !people.isEmpty || !context.shares.isEmpty || !context.subMeetingMoves.isEmpty else { return "" }
        var b = "<section id=\"context\">\n<h2>Context</h2>\n"
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
            var t = HTMLTable(headers: ["at", "what"])
            let rows = contextRows(p)
            for r in rows { t.add([ReportText.offset(r.ts, from: t0), r.what]) }
            b += HTMLPage.details("\(p.uid.html) <span class=\"muted\">(\(rows.count) context event\(rows.count == 1 ? "" : "s"))</span>",
                                  open: rows.count <= 4, t.rendered)
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
