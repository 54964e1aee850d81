/// Text from the logs made safe to print where a terminal may show it.
///
/// Log values are attacker-controlled: an ESC or BEL in a meeting id would
/// drive the terminal of whoever reads a reject reason or a Markdown report
/// (move the cursor, rewrite earlier lines, set the window title). Every
/// control character is shown as a visible escape instead (`\u001b`), and
/// so are the bidirectional overrides that can make text read differently
/// from what it is.
public enum TerminalText {
    /// `text` with C0/C1 controls, DEL and bidi overrides escaped as `\uXXXX`
    /// (`\n`, `\r`, `\t` as those two characters).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// Raw bytes as text: valid UTF-8 as it is (controls escaped as above),
    /// each byte of invalid UTF-8 as `\xFF`.
    public static func escaped(bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let (scalar, length) = decode(bytes, at: i)
            if let scalar {
                if needsEscape(scalar) { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
                i += length
            } else {
                out += "\\x" + hex(UInt32(bytes[i]), width: 2)
                i += 1
            }
        }
        return out
    }

    /// Whether `s` is shown as an escape: a control, a bidi override or
    /// mark, or a character that shows nothing (a zero-width space, a word
    /// joiner, a byte order mark), with which an id of 256 of them read as
    /// an empty cell. The joiners that shape text (U+200C, U+200D: Persian,
    /// emoji sequences) are shown as they are.
    public static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v < 0x20 || (v >= 0x7F && v <= 0x9F) || (v >= 0x202A && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069)
            || v == 0x200B || v == 0x200E || v == 0x200F || (v >= 0x2060 && v <= 0x2064) || v == 0xFEFF || v == 0x061C
            || v == 0x180E
    }

    /// The visible escape of one scalar that `needsEscape`.
    public static func escape(_ s: Unicode.Scalar) -> String {
        switch s {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u" + hex(s.value, width: 4)
        }
    }

    static func hex(_ v: UInt32, width: Int) -> String {
        let digits = String(v, radix: 16, uppercase: false)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// One UTF-8 scalar at `i` (strict: no overlongs, surrogates or values
    /// past U+10FFFF), or nil with length 1.
    static func decode(_ b: [UInt8], at i: Int) -> (Unicode.Scalar?, Int) {
        let c = b[i]
        if c < 0x80 { return (Unicode.Scalar(c), 1) }
        let (length, minimum, initial): (Int, UInt32, UInt32) =
            c & 0xE0 == 0xC0 ? (2, 0x80, UInt32(c & 0x1F)) :
            c & 0xF0 == 0xE0 ? (3, 0x800, UInt32(c & 0x0F)) :
            c & 0xF8 == 0xF0 ? (4, 0x10000, UInt32(c & 0x07)) : (0, 0, 0)
        guard length > 0, i + length <= b.count else { return (nil, 1) }
        var v = initial
        for k in 1..<length {
            let cont = b[i + k]
            guard cont & 0xC0 == 0x80 else { return (nil, 1) }
            v = v << 6 | UInt32(cont & 0x3F)
        }
        guard v >= minimum, let scalar = Unicode.Scalar(v) else { return (nil, 1) }
        return (scalar, length)
    }
}
