import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension MeetingReport {
    /// The Context section of the page (see `contextMarkdown`).
    func contextHTML(_ t0: Int64) -> String {
        guard hasContextSection else { return "" }
        var b = "<section id=\"context\">\n<h2>Context</h2>\n"
        b += "<p class=\"legend\">What the speaker snapshots and the context events say; none of it changes a figure on this page.</p>\n"
        for part in contextTables(t0) {
            switch (part.heading, part.events) {
            case (let uid?, let n?):
                b += HTMLPage.details("\(uid.html) <span class=\"muted\">(\(n) context event\(n == 1 ? "" : "s"))</span>",
                                      open: n <= 4, part.table.html)
            case (let heading?, nil): b += "<h3>\(heading.html)</h3>\n" + part.table.html
            case (nil, _): b += part.table.html
            }
        }
        return b + "</section>\n"
    }
}
