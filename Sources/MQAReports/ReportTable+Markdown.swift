import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension ReportTable {
    /// A Markdown table with padded columns, readable as plain text in a
    /// terminal and rendered as a table by Markdown viewers. Text cells are
    /// escaped (`Markdown.escape`); headers are shown as they are.
    public var markdown: String {
        var out = ""
        writeMarkdown(rows: rows.count, { rows[$0].cells }, holdingAll: true) { out += $0 }
        return out
    }

    /// `markdown` of a table whose `count` rows `row` makes, in pieces to
    /// `emit`. Past `heldRows` rows (unless `holdingAll`: a table that
    /// holds its rows anyway), each row is made twice (for the widths,
    /// then for its line) and never held with the others: a connection's
    /// 800,000 tier changes made a table of 545 MB whole. Fewer are made
    /// once and held, as making them is most of the work (twice, a
    /// 2,000-viewer webinar's `tiers` took 57 % longer).
    func writeMarkdown(rows count: Int, _ row: (Int) -> [ReportCell], holdingAll: Bool = false, _ emit: (String) -> Void) {
        func cells(_ k: Int) -> [String] { row(k).enumerated().map { markdownCell($0.element, column: $0.offset) } }
        let held = holdingAll || count <= ReportTable.heldRows ? (0..<count).map(cells) : nil
        var widths = markdownHeaderWidths
        for k in 0..<count { widen(&widths, held?[k] ?? cells(k)) }
        emit(markdownHead(widths))
        var lines = ""
        for k in 0..<count {
            lines += markdownLine(held?[k] ?? cells(k), widths)
            if lines.utf8.count >= 1 << 16 { emit(lines); lines = "" }
        }
        emit(lines)
    }

    /// Rows `writeMarkdown` holds at most (a few MB of cells).
    static let heldRows = 32_768

    /// Terminal columns, not characters: a wide character takes two.
    private var markdownHeaderWidths: [Int] { columns.map { max(3, TerminalText.columns($0.header)) } }

    private func widen(_ widths: inout [Int], _ row: [String]) {
        for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], TerminalText.columns(cell)) }
    }

    /// The header line and the rule under it.
    private func markdownHead(_ widths: [Int]) -> String {
        markdownLine(columns.map(\.header), widths) + "|" + widths.indices.map { i in
            columns[i].numeric ? String(repeating: "-", count: widths[i] + 1) + ":" : String(repeating: "-", count: widths[i] + 2)
        }.joined(separator: "|") + "|\n"
    }

    private func markdownLine(_ cells: [String], _ widths: [Int]) -> String {
        var parts: [String] = []
        for i in widths.indices {
            let cell = i < cells.count ? cells[i] : ""
            let pad = String(repeating: " ", count: widths[i] - TerminalText.columns(cell))
            parts.append(columns[i].numeric ? pad + cell : cell + pad)
        }
        return "| " + parts.joined(separator: " | ") + " |\n"
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
