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

    /// Adds a row of text; every cell is escaped (`Markdown.escape`), except
    /// the columns in `markup`, which hold Markdown built by mqa itself
    /// (a link to a report file, with its text escaped already).
    public mutating func add(_ row: [String], markup: Set<Int> = []) {
        rows.append(row.enumerated().map { markup.contains($0.offset) ? $0.element : Markdown.escape($0.element) })
    }

    public var rendered: String {
        let cleanRows = rows
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
