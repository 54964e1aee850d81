import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension ReportTable {
    /// An HTML table in a scrolling box; numeric columns align right. Text
    /// cells and headers are escaped (`HTMLEscaping`); markup cells are
    /// taken as they are.
    public var html: String {
        var out = htmlHead
        for row in rows { out += htmlRow(row) }
        return out + ReportTable.htmlTail
    }

    /// `html` of a table whose `count` rows `row` makes, each handed to
    /// `emit` as it is made: a 20,000-viewer meeting's 60,000 stalls are
    /// never held as one table or one text.
    func writeHTML(rows count: Int, _ row: (Int) -> Row, _ emit: (String) -> Void) {
        emit(htmlHead)
        for k in 0..<count { emit(htmlRow(row(k))) }
        emit(ReportTable.htmlTail)
    }

    /// `html` up to its first row: a table too long to hold (a meeting's
    /// 100,000 incidents) is written as its head, each row, and the tail.
    var htmlHead: String {
        var out = "<div class=\"scroll\"><table>\n<thead><tr>"
        for c in columns { out += c.numeric ? "<th class=\"n\">\(c.header.html)</th>" : "<th>\(c.header.html)</th>" }
        return out + "</tr></thead>\n<tbody>\n"
    }

    /// One row of `html`.
    func htmlRow(_ row: Row) -> String {
        var out = "<tr" + (row.id.map { " id=\"\($0)\"" } ?? "") + (row.htmlClass.map { " class=\"\($0)\"" } ?? "") + ">"
        for (i, cell) in row.cells.enumerated() {
            let numeric = i < columns.count && columns[i].numeric
            out += (numeric ? "<td class=\"n\">" : "<td>") + ReportTable.htmlCell(cell) + "</td>"
        }
        return out + "</tr>\n"
    }

    static let htmlTail = "</tbody>\n</table></div>\n"

    static func htmlCell(_ cell: ReportCell) -> String {
        switch cell {
        case .text(let s), .literal(let s), .number(_, let s), .empty(let s): s.html
        case .link(let s, let href): HTMLPage.link(href, s.html)
        case .markup(let markup, _): markup
        }
    }
}
