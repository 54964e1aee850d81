import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The one escaping function for text from the logs in Markdown output
/// (table cells, headings, list items), so that no id, title or reason can
/// restyle a report, start a heading or a new table row, or become a live
/// link, image or HTML tag (`![i](http://…)`, `[x](javascript:…)`,
/// `<script>`) in a viewer.
///
/// The report is read in a terminal as often as in a viewer, so a
/// character is escaped only where Markdown would give it a meaning:
/// `C:\work\board` and `a > b` stay as they are; `<external>` becomes
/// `\<external>` (a tag would start), `# x` at the start becomes `\# x`.
public enum Markdown {
    /// Escaped wherever they stand: code spans, emphasis, links, table cells.
    static let always: Set<Unicode.Scalar> = ["`", "*", "[", "]", "|"]

    /// `text` on one line: Markdown characters backslash-escaped where they
    /// would mean something (see the type), control characters (newlines
    /// included) shown as visible escapes (`\n`, `\u001b`), which read the
    /// same in a terminal and in a viewer.
    public static func escape(_ text: String) -> String {
        // Checked on the string itself first: most cells need nothing, and
        // then nothing is allocated.
        guard text.unicodeScalars.contains(where: { needsLook($0) || TerminalText.needsEscape($0) }) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        var atStart = true  // only spaces so far: a block marker would count here
        for (i, scalar) in scalars.enumerated() {
            if TerminalText.needsEscape(scalar) {
                out += TerminalText.escape(scalar)
                atStart = false
                continue
            }
            let next = i + 1 < scalars.count ? scalars[i + 1] : nil
            if escapes(scalar, next: next, atStart: atStart) { out += "\\" }
            out.unicodeScalars.append(scalar)
            if scalar != " " { atStart = false }
        }
        return out
    }

    /// Characters that may need a backslash, depending on where they stand.
    static func needsLook(_ c: Unicode.Scalar) -> Bool {
        always.contains(c) || c == "\\" || c == "<" || c == ">" || c == "#"
    }

    static func escapes(_ c: Unicode.Scalar, next: Unicode.Scalar?, atStart: Bool) -> Bool {
        if always.contains(c) { return true }
        switch c {
        // A backslash escapes the punctuation after it (and ends a line
        // as a hard break); before anything else it is a plain backslash.
        case "\\": return next.map { $0.isASCII && isPunctuation($0) } ?? true
        // `<` opens a tag, an autolink or a comment only before these.
        case "<": return next.map { ($0.isASCII && $0.properties.isAlphabetic) || $0 == "/" || $0 == "!" || $0 == "?" } ?? false
        // Block markers: a quote or a heading only at the start.
        case ">", "#": return atStart
        default: return false
        }
    }

    static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        (c.value >= 0x21 && c.value <= 0x2F) || (c.value >= 0x3A && c.value <= 0x40)
            || (c.value >= 0x5B && c.value <= 0x60) || (c.value >= 0x7B && c.value <= 0x7E)
    }
}
