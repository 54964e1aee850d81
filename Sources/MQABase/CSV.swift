import Foundation

/// CSV cells (RFC 4180) that are safe to open in a spreadsheet.
public enum CSV {
    /// Quotes a text cell when needed, and makes it inert when a spreadsheet
    /// would take it for a formula (`=`, `+`, `-`, `@`, tab, CR at the start):
    /// a leading apostrophe, which spreadsheets show as text.
    public static func cell(_ text: String) -> String {
        // Control characters shown as visible escapes: a CSV is read in
        // terminals too, and a quoted newline is the only one it needs
        // (there are none left after this).
        var t = TerminalText.escaped(text)
        if let first = t.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { t = "'" + t }
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
