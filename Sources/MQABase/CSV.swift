import Foundation

/// CSV cells (RFC 4180) that are safe to open in a spreadsheet.
public enum CSV {
    /// Quotes a text cell when needed, and makes it inert when a spreadsheet
    /// would take it for a formula (`=`, `+`, `-`, `@`, tab, CR at the start):
    /// a leading apostrophe, which spreadsheets show as text.
    ///
    /// A text that starts with an apostrophe gets one more (`=x` reads
    /// `'=x`, the id `'=x` reads `''=x`): the guard alone made the two one
    /// cell. Controls are shown as escapes, for terminals, as md shows
    /// them (a newline reads `\n`, as do the two characters backslash and
    /// n); JSON keeps every id exact.
    public static func cell(_ text: String) -> String {
        // Control characters shown as visible escapes: a CSV is read in
        // terminals too, and a quoted newline is the only one it needs
        // (there are none left after this).
        var t = TerminalText.escaped(text)
        if let first = t.unicodeScalars.first, "=+-@\t\r'".unicodeScalars.contains(first) { t = "'" + t }
        if t.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return t
    }

    /// A JSON text as a cell (the export's payload column), still JSON of the
    /// same value: the characters a terminal must not get raw (bidi
    /// overrides, DEL, C1 controls; JSON has escaped the rest) become JSON's
    /// own `\uXXXX` escapes. No formula guard: JSON starts with `{`.
    public static func jsonCell(_ json: String) -> String {
        let t = TerminalText.escaped(json)
        if t.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return t
    }

    /// A numeric cell: numbers are never quoted or prefixed.
    public static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return JSON.number(value)
    }
}
