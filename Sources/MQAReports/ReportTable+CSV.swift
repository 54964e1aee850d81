import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension ReportTable {
    /// RFC 4180 CSV: a header line, then a line per row. Text is quoted
    /// where needed and made inert where a spreadsheet would take it for
    /// a formula (`CSV.cell`); numbers are written as they are.
    public var csv: String { csvHeader + csvRows }

    /// The header line of `csv`.
    var csvHeader: String { columns.map { CSV.cell($0.header) }.joined(separator: ",") + "\n" }

    /// The lines of `csv` after its header.
    var csvRows: String {
        var out = ""
        writeCSVRows(rows: rows.count, { rows[$0].cells }) { out += $0 }
        return out
    }

    /// The lines of `csv` after its header for `count` rows that `row`
    /// makes, in pieces to `emit`, never all held.
    func writeCSVRows(rows count: Int, _ row: (Int) -> [ReportCell], _ emit: (String) -> Void) {
        var lines = ""
        for k in 0..<count {
            lines += row(k).map(ReportTable.csvCell).joined(separator: ",") + "\n"
            if lines.utf8.count >= 1 << 16 { emit(lines); lines = "" }
        }
        emit(lines)
    }

    static func csvCell(_ cell: ReportCell) -> String {
        switch cell {
        case .number(_, let shown): shown
        case .empty: ""
        case .text, .literal, .link, .markup: CSV.cell(cell.plain)
        }
    }
}
