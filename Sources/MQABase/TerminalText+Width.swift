extension TerminalText {
    /// How many terminal columns `text` takes: a character of the East
    /// Asian wide or fullwidth ranges (CJK, kana, Hangul, fullwidth forms)
    /// or shown as an emoji takes two, any other one. So that a padded
    /// table with a Japanese meeting title or an emoji still lines up in a
    /// terminal (`count` of characters left it one column short per such
    /// character).
    public static func columns(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        var n = 0
        for c in text { n += isWide(c) ? 2 : 1 }
        return n
    }

    static func isWide(_ c: Character) -> Bool {
        guard let first = c.unicodeScalars.first, first.value >= 0x1100 else { return false }
        if c.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation }) { return true }
        // An emoji shown as such by a variation selector (U+FE0F).
        if c.unicodeScalars.count > 1, c.unicodeScalars.contains(where: { $0.value == 0xFE0F }),
           first.properties.isEmoji { return true }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
