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
/// at all, since a single one would make the whole page unparseable, are
/// replaced: C0 controls are shown as md shows them (`\u0001`, `\t`,
/// `\n`), so that two ids differing in one stay two (a browser shows a raw
/// tab or newline as a space, so `a\tb` and `a b` read alike); U+FFFE and
/// U+FFFF become U+FFFD.
/// Of what md and the terminal also escape (`TerminalText.needsEscape`),
/// the characters that reorder or hide text are escaped here too: C1
/// controls and DEL, bidirectional overrides and isolates (a U+202E in a
/// uid reversed the page's text), and those that show nothing (a
/// zero-width space, a word joiner, a byte order mark: a uid of them was an
/// empty link). The marks that right-to-left and Mongolian text use (LRM,
/// RLM, ALM, U+180E) are left as they are: a browser lays them out as the
/// writer meant, where a terminal cannot.
public enum HTMLEscaping {
    /// Text content or a quoted attribute value: `&<>"'` escaped.
    public static func escape(_ text: String) -> String {
        // Most text (ids, numbers, tooltips) needs nothing: one pass over
        // the bytes instead of a copy scalar by scalar. The lead bytes of
        // what may need an escape take the slow path: 0x7F (DEL), 0xC2
        // (C1), 0xE2 (U+200B–U+2069), 0xEF (U+FEFF, U+FFFE, U+FFFF), and
        // other characters that share them.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27
                || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 || $0 == 0xEF }) {
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
            case _ where scalar.value < 0x20: out += TerminalText.escape(scalar)
            case _ where scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
            case _ where scalar.value >= 0x7F && TerminalText.needsEscape(scalar) && !HTMLEscaping.shownAsWritten(scalar):
                out += TerminalText.escape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension HTMLEscaping {
    /// Marks of right-to-left and Mongolian writing that `needsEscape`
    /// escapes for a terminal but a page shows as meant: LRM, RLM, ALM and
    /// the Mongolian vowel separator.
    static func shownAsWritten(_ s: Unicode.Scalar) -> Bool {
        s.value == 0x200E || s.value == 0x200F || s.value == 0x061C || s.value == 0x180E
    }
}

extension String {
    /// `HTMLEscaping.escape(self)`.
    var html: String { HTMLEscaping.escape(self) }
}
