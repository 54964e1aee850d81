/// The one escaping function for text from the logs in Markdown output
/// (table cells, headings, list items), so that no id, title or reason can
/// restyle a report, start a heading or a new table row, or become a live
/// link or image (`![i](http://…)`, `[x](javascript:…)`) in a viewer.
public enum Markdown {
    /// Characters with a meaning in Markdown (or raw HTML inside it).
    /// `(`, `)` need no escape once `[` and `]` have one: no link can form;
    /// `_` only styles, and ids are full of it.
    static let special: Set<Unicode.Scalar> = ["\\", "`", "*", "[", "]", "<", ">", "#", "|", "!"]

    /// `text` on one line: Markdown characters backslash-escaped, control
    /// characters (newlines included) shown as visible escapes (`\n`,
    /// `\u001b`), which read the same in a terminal and in a viewer.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { special.contains($0) || TerminalText.needsEscape($0) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if TerminalText.needsEscape(scalar) {
                out += TerminalText.escape(scalar)
            } else {
                if special.contains(scalar) { out += "\\" }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
