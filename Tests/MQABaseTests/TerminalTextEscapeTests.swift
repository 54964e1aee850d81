import Testing
@testable import MQABase

/// What shows as an escape in a terminal or a Markdown table: controls,
/// bidi overrides and marks, and characters that show nothing (an id of
/// 256 zero-width spaces read as an empty cell). Joiners that shape text
/// are shown as they are.
@Suite struct TerminalTextEscapeTests {
    @Test func invisibleCharactersAreEscaped() {
        for v: UInt32 in [0x1B, 0x202E, 0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF, 0x061C] {
            #expect(TerminalText.needsEscape(Unicode.Scalar(v)!), "U+\(String(v, radix: 16))")
        }
        for v: UInt32 in [0x41, 0xE9, 0x200C, 0x200D, 0x1F600] {
            #expect(!TerminalText.needsEscape(Unicode.Scalar(v)!), "U+\(String(v, radix: 16))")
        }
        #expect(TerminalText.escaped("a\u{200B}b") == "a\\u200bb")
    }
}
