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
/// since a single one would make the whole page unparseable. Bidirectional
/// overrides and isolates (U+202A–U+202E, U+2066–U+2069) are shown as
/// `\u202e`, as md and the terminal show them: one in a uid or a title
/// would make the text around it read in another order.
public enum HTMLEscaping {
    /// Text content or a quoted attribute value: `&<>"'` escaped.
    public static func escape(_ text: String) -> String {
        // Most text (ids, numbers, tooltips) needs nothing: one pass over
        // the bytes instead of a copy scalar by scalar. 0xEF leads U+FFFE
        // and U+FFFF (and other U+Fxxx), 0xE2 the bidi controls (and other
        // U+2xxx): those take the slow path.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0xEF || $0 == 0xE2 }) {
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
            case _ where (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value):
                out += "\\u" + String(scalar.value, radix: 16)
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
