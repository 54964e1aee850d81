import Foundation
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

/// The formula guard keeps texts apart: `=x` and the id `'=x` read alike
/// before (both `'=x`). Random texts over the guard's characters never
/// share a cell.
@Suite struct CSVCellInjectivityTests {
    @Test func theFormulaGuardKeepsTextsApart() {
        let alphabet: [String] = ["'", "=", "+", "-", "@", ",", "\"", "x", " "]
        var rng = SplitMix64(seed: 25)
        var seen: [String: String] = [:]
        for _ in 0..<20_000 {
            let length = Int(rng.next() % 6)
            let text = (0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }.joined()
            let cell = CSV.cell(text)
            if let other = seen[cell] { #expect(other == text, "\(other.debugDescription) and \(text.debugDescription) both read \(cell)") }
            seen[cell] = text
        }
        #expect(CSV.cell("=x") == "'=x")
        #expect(CSV.cell("'=x") == "''=x")
        #expect(CSV.cell("m\nx") == "m\\nx")
        #expect(CSV.cell("CORP\\alice") == "CORP\\alice")
    }

    @Test func aJSONCellStaysJSONOfTheSameValue() throws {
        let json = #"{"title":"a\"b\\c \#u{202e}d"}"#
        let cell = CSV.jsonCell(json)
        // RFC 4180 unquoting, then JSON.
        let unquoted = String(cell.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        let a = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        let b = try JSONSerialization.jsonObject(with: Data(unquoted.utf8)) as? [String: String]
        #expect(a != nil && a == b)
        #expect(!unquoted.unicodeScalars.contains("\u{202e}"))
    }
}
