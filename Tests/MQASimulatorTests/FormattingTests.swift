import Foundation
import Testing
@testable import MQASimulator

@Suite struct FormattingTests {
    private func text(_ f: (inout LineWriter) -> Void) -> String {
        var w = LineWriter(capacity: 64)
        f(&w)
        return String(decoding: w.buffer, as: UTF8.self)
    }

    @Test(arguments: [
        (7.5, 2, "7.5"), (0.04, 2, "0.04"), (3.0, 2, "3"), (0.0, 2, "0"), (100.0, 1, "100"),
        (12.25, 1, "12.3"), (4.306, 2, "4.31"), (-1.5, 1, "-1.5"), (0.001, 2, "0"), (1.10, 2, "1.1"),
        (2.999, 2, "3"),
    ])
    func fixedDecimals(value: Double, decimals: Int, expected: String) {
        #expect(text { $0.fixed(value, decimals: decimals) } == expected)
    }

    @Test func integers() {
        #expect(text { $0.int(Int64(0)) } == "0")
        #expect(text { $0.int(Int64(1_795_946_400_000)) } == "1795946400000")
        #expect(text { $0.int(-42) } == "-42")
        #expect(text { $0.int(Int64.min) } == "-9223372036854775808")
    }

    @Test func stringsAreEscapedAndRoundTrip() throws {
        for s in TitleCorpus.titles + ["\u{0}\u{1F}\u{7F}", "\\\"/", "\u{2028}", ""] {
            let json = text { $0.string(s) }
            let back = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
            #expect(back as? String == s)
        }
        #expect(text { $0.string("a\"b\\c\n") } == #""a\"b\\c\n""#)
    }

    @Test func rfc3339MatchesFoundation() {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let samples: [Int64] = [1_795_946_402_125, 946_684_800_000, 1_709_164_800_999, 1_793_491_200_000, 4_102_444_799_001]
        for ms in samples {
            for offset in [0, 60] {
                let s = text { $0.rfc3339(ms, offsetMinutes: offset) }
                let inner = String(s.dropFirst().dropLast())
                let date = f.date(from: inner)
                #expect(date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == ms, "\(s)")
            }
        }
        #expect(text { $0.rfc3339(1_795_946_402_125) } == "\"2026-11-29T10:00:02.125Z\"")
        #expect(text { $0.rfc3339(1_795_946_402_125, offsetMinutes: 60) } == "\"2026-11-29T11:00:02.125+01:00\"")
    }
}
