import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// The one table type: every format escapes its cells itself, so hostile
/// text can neither break a row nor reach a terminal or a page raw.
@Suite struct ReportTableTests {
    /// One cell per hazard, then a number and a missing value.
    static let hostile = ["a|b", "line1\nline2", "<script>x</script>", "say \"hi\"", "1,2", "esc\u{1B}[31mred", "abc\u{202E}fed"]

    var table: ReportTable {
        var t = ReportTable(columns: [ReportTable.Column("text", key: "t"), ReportTable.Column("n", numeric: true),
                                      ReportTable.Column("opt")])
        for h in ReportTableTests.hostile { t.add([.text(h), .int(-5), .empty(shown: "—")]) }
        return t
    }

    @Test func markdownEscapesEveryHazardAndKeepsOneLinePerRow() {
        let md = table.markdown
        let lines = md.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 2 + ReportTableTests.hostile.count)
        #expect(lines.allSatisfy { $0.hasPrefix("|") && $0.hasSuffix("|") })
        // Each row has exactly its 4 cell borders: the `|` in the text is escaped.
        for line in lines.dropFirst(2) { #expect(line.replacingOccurrences(of: "\\|", with: "").count { $0 == "|" } == 4) }
        #expect(md.contains("a\\|b"))
        #expect(md.contains("line1\\nline2"))
        #expect(md.contains("\\<script>x\\</script>"))
        #expect(md.contains("say \"hi\""))
        #expect(md.contains("esc\\u001b\\[31mred"))
        #expect(md.contains("abc\\u202efed"))
        #expect(!md.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
        // Numbers align right, a missing value shows its placeholder.
        #expect(lines[1].hasSuffix("|----:|-----|"))
        #expect(md.contains("|  -5 | —   |"))
    }

    @Test func htmlEscapesTextButNotMarkup() {
        var t = table
        t.columns[0].header = "a<b"
        t.add([.markup(html: "<span class=\"code\">x</span>", text: "x"), .link("q&a", href: "m.html"), .text("y")], htmlClass: "bad", id: "r-1")
        let html = t.html
        #expect(html.contains("<th>a&lt;b</th><th class=\"n\">n</th>"))
        #expect(html.contains("<td>&lt;script&gt;x&lt;/script&gt;</td><td class=\"n\">-5</td><td>—</td>"))
        #expect(html.contains("say &quot;hi&quot;"))
        #expect(html.contains("<td>a|b</td>") && html.contains("<td>1,2</td>"))
        // Not XML: a single control character would make the page unparseable.
        #expect(!html.unicodeScalars.contains { $0.value == 0x1B })
        #expect(html.contains("<tr id=\"r-1\" class=\"bad\"><td><span class=\"code\">x</span></td><td class=\"n\"><a href=\"m.html\">q&amp;a</a></td>"))
    }

    @Test func csvQuotesAndDisarmsButWritesNumbersAsTheyAre() {
        var t = table
        t.add([.text("=1+1"), .number(.double(0.5), shown: "0.5"), .text("")])
        let lines = t.csv.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 + ReportTableTests.hostile.count + 1)
        #expect(lines[0] == "text,n,opt")
        #expect(lines[1] == "a|b,-5,")
        #expect(lines[2] == "line1\\nline2,-5,")
        #expect(lines[4] == "\"say \"\"hi\"\"\",-5,")
        #expect(lines[5] == "\"1,2\",-5,")
        #expect(lines[6] == "esc\\u001b[31mred,-5,")
        #expect(lines[7] == "abc\\u202efed,-5,")
        #expect(lines[8] == "'=1+1,0.5,")
    }

    @Test func jsonKeepsTextExactAndTypesNumbers() {
        let json = table.json
        guard case .array(let rows) = json, case .object(let first) = rows[0] else {
            Issue.record("not an array of objects: \(json.rendered())")
            return
        }
        #expect(first.map(\.0) == ["t", "n", "opt"])
        #expect(first[1].1 == .int(-5) && first[2].1 == .null)
        #expect(rows.count == ReportTableTests.hostile.count)
        // The text itself, escaped only by JSON's own rules.
        #expect(json.rendered().contains("\"esc\\u001b[31mred\""))
        #expect(json.rendered().contains("\"line1\\nline2\""))
        #expect(json.rendered().contains("\"abc\u{202E}fed\""))
    }

    @Test func markdownCutsLongTextAfterMakingControlsVisible() {
        var t = ReportTable(columns: [ReportTable.Column("c", maxCharacters: 10)])
        t.add([.text(String(repeating: "x", count: 8) + "\u{1B}")])
        t.add([.text("short")])
        let md = t.markdown
        // 8 x's and the 6-character escape are 14 visible characters: cut to 9 and an ellipsis.
        #expect(md.contains("| xxxxxxxx\\… |"))
        #expect(md.contains("| short      |"))
    }

    @Test func literalsAndLinksInMarkdown() {
        var t = ReportTable(headers: ["#", "v", "link"])
        t.add([.literal("*"), .literal("[4,3.6]"), .link("a|b", href: "a_b.md")])
        t.add([.text("*"), .text("[4,3.6]"), .text("# head")])
        let rows = t.markdown.split(separator: "\n").dropFirst(2)
        #expect(rows.first == "| *   | [4,3.6]   | [a\\|b](a_b.md) |")
        #expect(rows.last == "| \\*  | \\[4,3.6\\] | \\# head        |")
    }

    /// Columns line up in a terminal whatever the script: a CJK character or
    /// an emoji takes two columns, an accented letter one.
    @Test func markdownPadsByTerminalColumns() {
        var t = ReportTable(headers: ["title", "n"])
        t.add([.text("週次定例"), .literal("1")])
        t.add([.text("Café 🎉"), .literal("2")])
        t.add([.text("plain"), .literal("3")])
        let rows = t.markdown.split(separator: "\n")
        #expect(rows[0] == "| title    | n   |")
        #expect(rows[2] == "| 週次定例 | 1   |")
        #expect(rows[3] == "| Café 🎉  | 2   |")
        #expect(rows[4] == "| plain    | 3   |")
        #expect(TerminalText.columns("한국어") == 6 && TerminalText.columns("ｆｕｌｌ") == 8 && TerminalText.columns("e\u{301}") == 1)
    }

    /// Rows made on demand (`writeMarkdown(rows:)`, `writeCSVRows`) give
    /// the bytes of the table holding them: held when few, made twice when
    /// more than `heldRows`, where the widest cell may come last.
    @Test(arguments: [0, 7, ReportTable.heldRows + 1])
    func rowsMadeOnDemandWriteTheHeldTablesBytes(count: Int) {
        let columns = [ReportTable.Column("text", maxCharacters: 12), ReportTable.Column("n", numeric: true),
                       ReportTable.Column("opt")]
        func row(_ k: Int) -> [ReportCell] {
            let text = ReportTableTests.hostile[k % ReportTableTests.hostile.count] + (k == count - 1 ? "한국어 and more" : "")
            return [.text(text), .int(Int64(k) * (k == count - 1 ? 1_000_003 : 1)), k % 3 == 0 ? .empty(shown: "—") : .text("x")]
        }
        var held = ReportTable(columns: columns)
        for k in 0..<count { held.add(row(k)) }
        var md = "", csv = ""
        ReportTable(columns: columns).writeMarkdown(rows: count, row) { md += $0 }
        ReportTable(columns: columns).writeCSVRows(rows: count, row) { csv += $0 }
        #expect(md == held.markdown)
        #expect(csv == held.csvRows)
    }
}

