import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// Escaping for text that comes from the logs (ids, titles, reasons, …) on
/// its way into HTML or SVG.
///
/// The pages are written as XHTML-compatible markup so that an XML parser
/// can check them; the escaping therefore covers XML's rules too: the five
/// special characters become entities, and characters XML 1.0 does not allow
/// at all (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF) become U+FFFD,
/// since a single one would make the whole page unparseable. What md and
/// the terminal show as an escape (`TerminalText.needsEscape`: C1
/// controls and DEL, bidirectional overrides, isolates and marks, and
/// characters that show nothing, a zero-width space or a byte order mark)
/// is shown the same way here (`\u202e`): one in a uid or a title would
/// make the text around it read in another order, or a uid of them an
/// empty link.
public enum HTMLEscaping {
    /// Text content or a quoted attribute value: `&<>"'` escaped.
    public static func escape(_ text: String) -> String {
        // Most text (ids, numbers, tooltips) needs nothing: one pass over
        // the bytes instead of a copy scalar by scalar. The lead bytes of
        // what may need an escape take the slow path: 0x7F (DEL), 0xC2
        // (C1), 0xD8 (U+061C), 0xE1 (U+180E), 0xE2 (U+200B–U+2069), 0xEF
        // (U+FEFF, U+FFFE, U+FFFF), and other characters that share them.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27
                || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE1 || $0 == 0xE2 || $0 == 0xEF }) {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\u{FFFD}"
            case _ where scalar.value >= 0x7F && TerminalText.needsEscape(scalar):
                out += TerminalText.escape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// `HTMLEscaping.escape(self)`.
    var html: String { HTMLEscaping.escape(self) }
}
