import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension ReportTable {
    /// A Markdown table with padded columns, readable as plain text in a
    /// terminal and rendered as a table by Markdown viewers. Text cells are
    /// escaped (`Markdown.escape`); headers are shown as they are.
    public var markdown: String {
        let cells = rows.map { row in row.cells.enumerated().map { markdownCell($0.element, column: $0.offset) } }
        // Terminal columns, not characters: a wide character takes two.
        var widths = columns.map { max(3, TerminalText.columns($0.header)) }
        for row in cells {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], TerminalText.columns(cell)) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for i in widths.indices {
                let cell = i < cells.count ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - TerminalText.columns(cell))
                parts.append(columns[i].numeric ? pad + cell : cell + pad)
            }
            return "| " + parts.joined(separator: " | ") + " |\n"
        }
        var out = line(columns.map(\.header))
        out += "|" + widths.indices.map { i in
            columns[i].numeric ? String(repeating: "-", count: widths[i] + 1) + ":" : String(repeating: "-", count: widths[i] + 2)
        }.joined(separator: "|") + "|\n"
        for row in cells { out += line(row) }
        return out
    }

    func markdownCell(_ cell: ReportCell, column: Int) -> String {
        switch cell {
        case .text(let s):
            guard let limit = column < columns.count ? columns[column].maxCharacters : nil else { return Markdown.escape(s) }
            // Cut what the reader sees: the escapes count, and a cut never
            // splits one.
            let visible = TerminalText.escaped(s)
            return Markdown.escape(visible.count > limit ? String(visible.prefix(limit - 1)) + "…" : visible)
        case .literal(let s): return TerminalText.escaped(s)
        case .number(_, let shown), .empty(let shown), .markup(_, let shown): return Markdown.escape(shown)
        case .link(let s, let href): return "[\(Markdown.escape(s))](\(href))"
        }
    }
}
