import Foundation

/// A Markdown table with padded columns, readable as plain text in a
/// terminal and rendered as a table by Markdown viewers.
public struct MarkdownTable {
    public var headers: [String]
    public var rows: [[String]] = []
    /// Columns aligned right (numbers).
    public var rightAligned: Set<Int> = []

    public init(headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    public mutating func add(_ row: [String]) { rows.append(row) }

    /// Pipes and newlines inside cells would break the table: escape them.
    static func clean(_ cell: String) -> String {
        cell.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "\r", with: " ")
    }

    public var rendered: String {
        let cleanRows = rows.map { $0.map(MarkdownTable.clean) }
        var widths = headers.map { max(3, $0.count) }
        for row in cleanRows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for i in widths.indices {
                let cell = i < cells.count ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                parts.append(rightAligned.contains(i) ? pad + cell : cell + pad)
            }
            return "| " + parts.joined(separator: " | ") + " |\n"
        }
        var out = line(headers)
        out += "|" + widths.indices.map { i in
            rightAligned.contains(i) ? String(repeating: "-", count: widths[i] + 1) + ":" : String(repeating: "-", count: widths[i] + 2)
        }.joined(separator: "|") + "|\n"
        for row in cleanRows { out += line(row) }
        return out
    }
}
