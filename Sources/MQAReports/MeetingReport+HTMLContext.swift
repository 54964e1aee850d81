import MQADomain

extension MeetingReport {
    /// The Context section of the page (see `contextMarkdown`).
    func contextHTML(_ t0: Int64) -> String {
        guard hasContextSection else { return "" }
        let people = contextPeople
        var b = "<section id=\"context\">\n<h2>Context</h2>\n"
        b += "<p class=\"legend\">What the speaker snapshots and the context events say; none of it changes a figure on this page.</p>\n"
        if !people.isEmpty { b += contextCountsTable(people).html }
        for p in people where p.hasItems {
            let rows = contextRows(p)
            b += HTMLPage.details("\(p.uid.html) <span class=\"muted\">(\(rows.count) context event\(rows.count == 1 ? "" : "s"))</span>",
                                  open: rows.count <= 4, contextTimelineTable(rows, t0).html)
        }
        if !context.shares.isEmpty { b += "<h3>Shares</h3>\n" + sharesTable(t0).html }
        if !context.subMeetingMoves.isEmpty { b += "<h3>Moves to sub-meetings</h3>\n" + movesTable(t0).html }
        return b + "</section>\n"
    }
}
