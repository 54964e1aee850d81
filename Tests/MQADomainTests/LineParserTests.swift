import Testing
import Foundation
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Parses one line with a fixed "now" (2026-11-30).
func parse(_ text: String, now: Int64 = 1_796_000_000_000) -> (LineOutcome, ParsedLine) {
    var parser = LineParser(nowMs: now)
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { line in
        let outcome = parser.parse(line)
        return (outcome, ParsedLine(parser, line: line, outcome: outcome))
    }
}

/// What the parser shows of one line, copied out while the line was lent:
/// the parser neither copies nor outlives it.
struct ParsedLine {
    let kind: EventKind
    let ts: Int64
    let meeting: [UInt8], uid: [UInt8]
    let loss: DecimalNumber, rtt: DecimalNumber, jitter: DecimalNumber, bitrate: DecimalNumber, mos: DecimalNumber
    let report: QualityReport
    private let built: EventPayload?
    private let canonical: [UInt8]

    init(_ parser: borrowing LineParser, line: UnsafeBufferPointer<UInt8>, outcome: LineOutcome) {
        (kind, ts, meeting, uid) = (parser.kind, parser.ts, parser.meeting, parser.uid)
        (loss, rtt, jitter, bitrate, mos) = (parser.loss, parser.rtt, parser.jitter, parser.bitrate, parser.mos)
        report = parser.report
        built = outcome == .event ? parser.payload(in: line) : nil
        var bytes: [UInt8] = []
        if outcome == .event && parser.kind != .qualityReport { parser.appendCanonicalPayload(of: line, to: &bytes) }
        canonical = bytes
    }

    /// The parser's `payload(in:)` of the line (an `.event` one).
    func payload() -> EventPayload { built! }
    /// The parser's `appendCanonicalPayload(of:to:)` of the line.
    func appendCanonicalPayload(to out: inout [UInt8]) { out += canonical }
}

func reason(_ text: String) -> String? {
    if case .rejected(let r) = parse(text).0 { return r }
    return nil
}

let envelope = #""ts":1795946400000,"meeting":"m-1","uid":"alice""#
func report(_ fields: String) -> String { "{\(envelope),\"event\":\"quality_report\",\(fields)}" }

@Suite struct LineParserTests {
    @Test func acceptsTheSpecExample() {
        let (outcome, p) = parse(report(#""loss":0.4,"rtt":48,"jitter":6,"bitrate":1850,"mos":4.31"#))
        #expect(outcome == .event)
        #expect(p.kind == .qualityReport)
        #expect(p.ts == 1_795_946_400_000)
        #expect(p.report == QualityReport(loss: 0.4, rtt: 48, jitter: 6, bitrate: 1850, mos: 4.31))
        #expect(String(decoding: p.meeting, as: UTF8.self) == "m-1")
    }

    @Test("numbers in every JSON form", arguments: [
        ("1e3", 1000.0), ("-0", 0.0), ("4.50", 4.5), ("0.0001", 0.0001), ("1E+2", 100), ("25e-1", 2.5),
        ("100.000000000000000000000", 100.0), ("1e-30000", 0),
    ])
    func numberForms(text: String, value: Double) {
        let (outcome, p) = parse(report("\"loss\":0,\"rtt\":\(text),\"jitter\":0,\"bitrate\":0,\"mos\":null"))
        #expect(outcome == .event)
        #expect(p.report.rtt == value)
    }

    @Test func keepsDecimalText() {
        let (_, p) = parse(report(#""loss":4.50,"rtt":1e3,"jitter":0.4,"bitrate":0,"mos":0"#))
        #expect(p.loss.jsonText == "4.5")
        #expect(p.rtt.jsonText == "1000")
        #expect(p.jitter.jsonText == "0.4")
    }

    @Test("invalid JSON is rejected", arguments: [
        "{", "not json", #"{"ts":1,}"#, #"{"ts":01}"#, #"{"a":"\x"}"#, #"{"a":tru}"#, "{\"a\":\"\u{01}\"}",
        #"{"a":"\ud80"}"#, #"{"a":"\ud80g"}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#,
        #"{} {}"#, #"{"a" 1}"#,
    ])
    func invalidJSON(line: String) {
        #expect(reason(line)?.hasPrefix("not valid JSON") == true)
    }

    /// An unpaired surrogate escape is JSON's grammar (RFC 8259, 8.2), and
    /// what JavaScript writes for an emoji cut in two: the line is valid
    /// (it was rejected, and a join with such a title lost its meeting),
    /// and the lone half reads as U+FFFD; a pair is one scalar.
    @Test func anUnpairedSurrogateIsTheReplacementCharacter() throws {
        let join = #"{"ts":1795946400000,"event":"meeting_join","meeting":"m","uid":"a","engine":"sfu","title":"Q4 \ud83c","x":"\udc00\ud800"}"#
        #expect(reason(join) == nil)
        var out: [UInt8] = []
        for (text, decoded) in [(#"a\ud83cb"#, "a\u{FFFD}b"), (#"\udc00\ud83c"#, "\u{FFFD}\u{FFFD}"), (#"\ud83c\udfa7"#, "🎧"),
                                (#"\ud83c\u0041"#, "\u{FFFD}A"), (#"\ud83c"#, "\u{FFFD}")] {
            out.removeAll()
            Array(text.utf8).withUnsafeBufferPointer { JSONScanner.unescape($0, into: &out) }
            #expect(String(decoding: out, as: UTF8.self) == decoded, "\(text)")
        }
    }

    /// Spaces around separators are optional: a line spaced out parses to
    /// what its compact form does, and a misplaced byte is reported at its
    /// own column whichever separator the scanner looked for first.
    @Test func spacesAroundSeparatorsAreOptionalAndErrorsNameTheColumn() {
        let fields = #""loss":0.4,"rtt":48,"jitter":6,"bitrate":1850,"mos":4.31"#
        let compact = parse(report(fields)).1
        for spaced in [
            "{ \(envelope) , \"event\" : \"quality_report\" ,\t\(fields.replacingOccurrences(of: ",", with: " , ")) }",
            "{\(envelope),\"event\":\"quality_report\",\(fields.replacingOccurrences(of: ":", with: " :\r\n "))}",
        ] {
            let (outcome, p) = parse(spaced)
            #expect(outcome == .event, "\(spaced)")
            #expect(p.report == compact.report && p.ts == compact.ts && p.meeting == compact.meeting)
        }
        for (line, expected) in [
            (#"{"a":1 x}"#, "not valid JSON: expected ',' or '}' at column 8"),
            (#"{"a":1x}"#, "not valid JSON: expected ',' or '}' at column 7"),
            (#"{"a" x}"#, "not valid JSON: expected ':' at column 6"),
            (#"{"a"x}"#, "not valid JSON: expected ':' at column 5"),
            (#"{"a":1, x}"#, "not valid JSON: expected a field name at column 9"),
            (#"{"a":1,}"#, "not valid JSON: expected a field name at column 8"),
            (#"{"a":1"#, "not valid JSON: unterminated object at column 7"),
            (#"{"a":1  "#, "not valid JSON: unterminated object at column 9"),
            ("{\"a\":1\u{01}}", "not valid JSON: expected ',' or '}' at column 7"),
        ] {
            #expect(reason(line) == expected, "\(line)")
        }
    }

    @Test func invalidUTF8IsRejected() {
        var parser = LineParser(nowMs: .max)
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xFF]] {
            let line = Array(#"{"ts":1795946400000,"event":"x","meeting":"m","uid":""#.utf8) + bad + Array(#""}"#.utf8)
            let outcome = line.withUnsafeBufferPointer { parser.parse($0) }
            guard case .rejected(let r) = outcome else { Issue.record("accepted \(bad)"); continue }
            #expect(r.contains("invalid UTF-8"))
        }
    }

    @Test func notAnObject() {
        #expect(reason("[1,2]") == "not a JSON object at column 1")
        #expect(reason("42")?.contains("not a JSON object") == true)
    }

    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(reason(#"{"x":\#(deep),"ts":1}"#)?.contains("nested deeper than 512 levels") == true)
        // Deep, but as deep as JSON parsers in common use take (Python's
        // takes about 1,000 levels): a valid line.
        let fine = String(repeating: "{\"a\":", count: 200) + "1" + String(repeating: "}", count: 200)
        #expect(reason(#"{"ts":1795946400000,"event":"x","meeting":"m","uid":"u","extra":\#(fine)}"#) == nil)
    }

    @Test("envelope rules", arguments: [
        (#"{"event":"x","meeting":"m","uid":"u"}"#, "ts: missing"),
        (#"{"ts":true,"event":"x","meeting":"m","uid":"u"}"#, "ts: must be"),
        (#"{"ts":1795946400000.5,"event":"x","meeting":"m","uid":"u"}"#, "ts: must be an integer"),
        (#"{"ts":"yesterday","event":"x","meeting":"m","uid":"u"}"#, "ts: not a valid RFC 3339"),
        (#"{"ts":"2026-02-30T00:00:00Z","event":"x","meeting":"m","uid":"u"}"#, "ts: not a valid RFC 3339"),
        (#"{"ts":946684799999,"event":"x","meeting":"m","uid":"u"}"#, "before 2000-01-01"),
        (#"{"ts":1796086400001,"event":"x","meeting":"m","uid":"u"}"#, "more than a day in the future"),
        (#"{"ts":1795946400000,"meeting":"m","uid":"u"}"#, "event: missing"),
        (#"{"ts":1795946400000,"event":7,"meeting":"m","uid":"u"}"#, "event: must be a string"),
        (#"{"ts":1795946400000,"event":"","meeting":"m","uid":"u"}"#, "event: empty"),
        (#"{"ts":1795946400000,"event":"x","uid":"u"}"#, "meeting: missing"),
        (#"{"ts":1795946400000,"event":"x","meeting":"","uid":"u"}"#, "meeting: empty"),
        (#"{"ts":1795946400000,"event":"x","meeting":null,"uid":"u"}"#, "meeting: must be a string"),
        (#"{"ts":1795946400000,"event":"x","meeting":"m"}"#, "uid: missing"),
        (#"{"ts":1795946400000,"event":"x","meeting":"m","uid":5}"#, "uid: must be a string"),
    ])
    func envelopeRules(line: String, expected: String) {
        #expect(reason(line)?.contains(expected) == true, "\(line) -> \(reason(line) ?? "accepted")")
    }

    @Test func idsAreCountedInCodePoints() {
        let ok = String(repeating: "é", count: 256)  // 512 bytes, 256 characters
        #expect(parse(#"{"ts":1795946400000,"event":"x","meeting":"\#(ok)","uid":"u"}"#).0 == .ignored)
        let long = String(repeating: "a", count: 257)
        #expect(reason(#"{"ts":1795946400000,"event":"x","meeting":"m","uid":"\#(long)"}"#)?.contains("257 characters") == true)
    }

    /// A payload field the spec types "uid" (or a meeting id) is one as the
    /// envelope's are: 1–256 characters, counted in code points after the
    /// escapes are decoded; every speaker too.
    @Test func payloadUidsAreUidsOf1To256Characters() {
        let e = #""ts":1795946400000,"meeting":"m","uid":"u""#
        let ok = String(repeating: "é", count: 256), long = String(repeating: "a", count: 257)
        for (event, rest) in [("stream_subscribe", #","track":"t","kind":"camera""#), ("stream_unsubscribe", #","track":"t""#),
                              ("receive_stream_status", #","track":"t","timedOut":false"#), ("room_share_start", ""),
                              ("room_share_stop", "")] {
            for (value, expected) in [("", "publisher: empty"), (long, "publisher: 257 characters, at most 256 allowed")] {
                let line = "{\(e),\"event\":\"\(event)\",\"publisher\":\"\(value)\"\(rest)}"
                #expect(reason(line) == expected, "\(event)")
            }
            #expect(reason("{\(e),\"event\":\"\(event)\",\"publisher\":\"\(ok)\"\(rest)}") == nil, "\(event)")
        }
        for (event, rest) in [("user_enter", ""), ("user_leave", ""), ("sub_meeting_move", ""),
                              ("member_media_state", #","media":"mic","on":true,"byAdmin":false"#)] {
            #expect(reason("{\(e),\"event\":\"\(event)\",\"target\":\"\"\(rest)}") == "target: empty", "\(event)")
            #expect(reason("{\(e),\"event\":\"\(event)\",\"target\":\"\(ok)\"\(rest)}") == nil, "\(event)")
        }
        let media = #","event":"member_media_state","target":"b","media":"mic","on":true,"byAdmin":false"#
        #expect(reason("{\(e)\(media),\"opUid\":\"\"}") == "opUid: empty")
        #expect(reason("{\(e)\(media),\"opUid\":null}") == nil)
        // An escape is one character: 256 of them are a uid.
        let escaped = String(repeating: #"\u00e9"#, count: 256)
        #expect(reason("{\(e),\"event\":\"user_enter\",\"target\":\"\(escaped)\"}") == nil)
        let speakers = #","event":"active_speakers_change","speakers":"#
        #expect(reason("{\(e)\(speakers)[\"a\",\"\"]}") == "speakers: uid 2: empty")
        #expect(reason("{\(e)\(speakers)[\"\(long)\"]}") == "speakers: uid 1: 257 characters, at most 256 allowed")
        #expect(reason("{\(e)\(speakers)[\"a\",\"\\u0062\",\"\(ok)\"]}") == nil)
        #expect(reason("{\(e)\(speakers)[]}") == nil)
    }

    @Test func rfc3339Forms() {
        for (text, ms) in [("2026-11-29T10:00:02.125Z", Int64(1_795_946_402_125)), ("2026-11-29t10:00:02z", 1_795_946_402_000),
                           ("2026-11-29T11:00:02.1259+01:00", 1_795_946_402_125), ("2026-11-29 10:00:02Z", 1_795_946_402_000),
                           ("2024-02-29T00:00:00-00:30", 1_709_166_600_000)] {
            let (outcome, p) = parse(#"{"ts":"\#(text)","event":"reconnect","meeting":"m","uid":"u"}"#, now: 1_800_000_000_000)
            #expect(outcome == .event, "\(text)")
            #expect(p.ts == ms, "\(text)")
        }
    }

    /// What RFC 3339 does not allow is refused, each part checked; a leap
    /// second is the next second, and only where one can be (§5.7).
    @Test func rfc3339Refusals() {
        func ms(_ text: String) -> Int64? { Array(text.utf8).withUnsafeBufferPointer { RFC3339.milliseconds($0) } }
        for bad in ["2026-11-29T10:60:00Z", "2026-11-29T10:00:61Z", "2026-11-29T24:00:00Z", "2023-02-29T00:00:00Z",
                    "2026-13-01T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-29T10:00:00", "2026-11-29T10:00:00.Z",
                    "2026-11-29T10:00:00+24:00", "2026-11-29T10:00:00+01:60", "2026-11-29T10:00:00Zx",
                    "2026-11-29x10:00:00Z", "2026-11-29T10:00Z", "2026-11-29T1:00:00Z", "2026-11-29T10:00:00+0100"] {
            #expect(ms(bad) == nil, "\(bad)")
        }
        for bad in ["2026-11-29T10:00:60Z", "2026-11-30T23:59:60Z", "2016-12-31T22:59:60Z", "2016-12-31T23:59:60+01:00",
                    "2016-06-30T23:58:60Z", "2016-07-01T00:00:60Z"] {
            #expect(ms(bad) == nil, "\(bad)")
        }
        // The real leap seconds of 2016 and 2015, also in another zone.
        #expect(ms("2016-12-31T23:59:60Z") == ms("2017-01-01T00:00:00Z"))
        #expect(ms("2016-12-31T23:59:60.5Z") == ms("2017-01-01T00:00:00.5Z"))
        #expect(ms("2017-01-01T00:59:60+01:00") == ms("2017-01-01T00:00:00Z"))
        #expect(ms("2015-06-30T19:59:60-04:00") == ms("2015-07-01T00:00:00Z"))
        #expect(ms("2026-11-29T10:59:59.9999Z") == ms("2026-11-29T10:59:59.999Z"))
    }

    /// A time read through the hour cache is what a full parse gives, for
    /// runs of times that share a date and hour, then change one byte of
    /// it, or are bad after it, or too short to be cached at all.
    @Test func hourCacheGivesWhatAFullParseGives() {
        var rng = SplitMix64(seed: 3339)
        var cache = RFC3339.HourCache()
        let dates = ["2026-11-29", "2024-02-29", "2023-02-29", "2026-02-30", "2026-13-01", "1999-12-31", "2026-11-3x"]
        let separators = ["T", "t", " ", "x"]
        let zones = ["Z", "z", "+01:00", "-00:30", "+24:00", "+01:60", "", "Zx", "+0100"]
        var checked = 0
        for _ in 0..<8_000 {
            // A run of times in one hour, now and then another date or hour.
            let date = dates[rng.below(dates.count)]
            let hour = ["00", "10", "23", "24", "1x"][rng.below(5)]
            let separator = separators[rng.below(separators.count)]
            for _ in 0..<(1 + rng.below(6)) {
                var text = date + separator + hour
                text += ":" + ["00", "07", "59", "60"][rng.below(4)] + ":" + ["00", "02", "59", "60", "61"][rng.below(5)]
                if rng.chance(0.7) { text += "." + String((0..<rng.below(8)).map { _ in Character(String(rng.below(10))) }) }
                text += zones[rng.below(zones.count)]
                var bytes = Array(text.utf8)
                if rng.chance(0.1) { bytes = Array(bytes.prefix(rng.below(bytes.count + 1))) }
                if rng.chance(0.1), !bytes.isEmpty { bytes[rng.below(min(13, bytes.count))] ^= 0x01 }
                bytes.withUnsafeBufferPointer { b in
                    let cached = RFC3339.milliseconds(b, cache: &cache)
                    let full = RFC3339.milliseconds(b)
                    #expect(cached == full, "\(String(decoding: bytes, as: UTF8.self))")
                    if full != nil { checked += 1 }
                }
            }
        }
        // The runs must hold valid times too, or the cache is never used.
        #expect(checked > 800)
    }

    @Test func unknownEventsAreIgnoredButStillValidated() {
        #expect(parse(#"{"ts":1795946400000,"event":"future_thing","meeting":"m","uid":"u","x":{"y":[1,2]}}"#).0 == .ignored)
        #expect(reason(#"{"ts":1795946400000,"event":"future_thing","meeting":"m"}"#) == "uid: missing")
    }

    @Test func escapesAndSurrogatesDecode() {
        let (outcome, p) = parse(#"{"ts":1795946400000,"event":"reconnect","meeting":"m-\u00e9\ud83d\ude00\n","uid":"a\"b"}"#)
        #expect(outcome == .event)
        #expect(String(decoding: p.meeting, as: UTF8.self) == "m-é😀\n")
        #expect(String(decoding: p.uid, as: UTF8.self) == "a\"b")
        // An escaped key still names the field.
        #expect(parse(#"{"t\u0073":1795946400000,"event":"reconnect","meeting":"m","uid":"u"}"#).0 == .event)
    }

    @Test("report value rules", arguments: [
        (#""rtt":1,"jitter":1,"bitrate":1,"mos":4"#, "loss: missing"),
        (#""loss":"1","rtt":1,"jitter":1,"bitrate":1,"mos":4"#, "loss: must be a number"),
        (#""loss":100.01,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#, "loss: 100.01 is outside 0–100"),
        (#""loss":-1,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#, "loss: -1 is outside"),
        (#""loss":1,"rtt":-0.5,"jitter":1,"bitrate":1,"mos":4"#, "rtt: -0.5 is negative"),
        (#""loss":1,"rtt":1,"jitter":-1,"bitrate":1,"mos":4"#, "jitter: -1 is negative"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":-1,"mos":4"#, "bitrate: -1 is negative"),
        (#""loss":1,"rtt":1e999,"jitter":1,"bitrate":1,"mos":4"#, "rtt: not a finite number"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1"#, "mos: missing"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":0.5"#, "mos: 0.5 is outside 1–5"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":5.01"#, "mos: 5.01 is outside 1–5"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":"4""#, "mos: must be a number"),
    ])
    func reportRules(fields: String, expected: String) {
        let r = reason(report(fields))
        #expect(r?.hasPrefix(expected) == true, "\(fields) -> \(r ?? "accepted")")
    }

    /// Ranges are decided on the logged decimal text, not on the nearest
    /// Double (which is exactly the bound for all of these).
    @Test("values just outside a range are rejected", arguments: [
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":0.99999999999999999999999"#,
         "mos: 0.99999999999999999999999 is outside 1–5"),
        (#""loss":100.00000000000000000001,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#,
         "loss: 100.00000000000000000001 is outside 0–100"),
        (#""loss":100.0000000000000001,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#, "loss: 100.0000000000000001 is outside"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":5.000000000000000001"#, "mos: 5.000000000000000001 is outside"),
        (#""loss":1,"rtt":-1e-400,"jitter":1,"bitrate":1,"mos":4"#, "rtt: -1e-400 is negative"),
        (#""loss":-0.0000000000000000000000001,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#, "loss: -0.0000000000000000000000001 is outside"),
        (#""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":1e-99999"#, "mos: 1e-99999 is outside"),
    ])
    func exactRanges(fields: String, expected: String) {
        let r = reason(report(fields))
        #expect(r?.hasPrefix(expected) == true, "\(fields) -> \(r ?? "accepted")")
    }

    @Test func valuesAtTheBoundsAndJustInsideAreKeptExactly() {
        let (outcome, p) = parse(report(#""loss":99.9999999999999999,"rtt":123456789.123456789,"jitter":-0,"bitrate":0,"mos":1.000000000000000001"#))
        #expect(outcome == .event)
        #expect(p.loss.jsonText == "99.9999999999999999")
        #expect(p.rtt.jsonText == "123456789.123456789")
        #expect(p.mos.jsonText == "1.000000000000000001")
        #expect(parse(report(#""loss":100,"rtt":0,"jitter":0,"bitrate":0,"mos":5.0000"#)).0 == .event)
        #expect(parse(report(#""loss":0,"rtt":0,"jitter":0,"bitrate":0,"mos":1"#)).0 == .event)
    }

    /// Beyond 64-bit decimals (19 digits under 2^63) a number in range is
    /// still a valid value (the spec rejects a line for no other reason):
    /// kept as its correctly rounded double. It was rejected, and a report
    /// whose `mos` was the double 3.6 written out in full went missing from
    /// the tiers. Only what no double holds is refused.
    @Test func numbersBeyondDecimalsAreKeptAsDoubles() {
        let (outcome, p) = parse(report(#""loss":1,"rtt":50.0000000000000000000001,"jitter":1e-40000,"bitrate":123456789012345678901234567890,"mos":3.600000000000000088817841970012523233890533447265625"#))
        #expect(outcome == .event, "\(outcome)")
        #expect(!p.rtt.isBinary && p.rtt.jsonText == "50", "stored as the decimal of the double's shortest digits")
        #expect(!p.bitrate.isBinary && !p.mos.isBinary && !p.jitter.isBinary)
        #expect(p.jitter.jsonText == "0")
        #expect(p.bitrate.jsonText == "12345678901234568e13")
        #expect(p.mos.doubleValue == 3.6 && p.mos.jsonText == "3.6")
        #expect(reason(report(#""loss":1,"rtt":1e40000,"jitter":1,"bitrate":1,"mos":4"#)) == "rtt: not a finite number")
        // The range is still checked on the text, however long.
        #expect(reason(report(#""loss":100.00000000000000000000001,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#))?.hasPrefix("loss: 100.00000000000000000000001 is outside 0–100") == true)
        // Zero at any exponent is exactly zero: stored as 0, not refused.
        let (zero, z) = parse(report(#""loss":0e99999,"rtt":-0.0e-40000,"jitter":0,"bitrate":0,"mos":4"#))
        #expect(zero == .event && z.loss.jsonText == "0" && z.rtt.jsonText == "0", "\(zero)")
    }

    /// A double's text, read back as a decimal, is the double again: what
    /// export writes for a binary value reads back to the same text.
    @Test func aDoublesShortestDigitsReadBackAsIt() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let d = Double(bitPattern: rng.next() & ~(0x7FF << 52) | (UInt64.random(in: 0...0x7FE, using: &rng) << 52))
            guard let dec = DecimalNumber(shortestDigitsOf: d) else { Issue.record("\(d)"); continue }
            #expect(dec.doubleValue == d || (d == 0 && dec.doubleValue == 0), "\(d) → \(dec.jsonText)")
            #expect(Double(dec.jsonText) == d || d == 0, "\(d) → \(dec.jsonText)")
        }
        #expect(DecimalNumber(shortestDigitsOf: .infinity) == nil && DecimalNumber(shortestDigitsOf: .nan) == nil)
    }

    @Test("ts beyond Int64 is out of range, a fraction is not an integer", arguments: [
        ("1e30", "ts: 1e30 is out of range (more than a day in the future)"),
        ("-1e30", "ts: -1e30 is out of range (before 2000-01-01)"),
        ("17959464000000000000000000001", "ts: 17959464000000000000000000001 is out of range (more than a day in the future)"),
        ("1795946400000.0000000000000000001", "ts: must be an integer number of ms since the epoch or an RFC 3339 string"),
        ("1e-5", "ts: must be an integer number of ms since the epoch or an RFC 3339 string"),
    ])
    func tsRange(text: String, expected: String) {
        #expect(reason(#"{"ts":\#(text),"event":"x","meeting":"m","uid":"u"}"#) == expected)
    }

    @Test func wholeTsInOtherSpellings() {
        for text in ["1795946400000.000", "1.7959464e12", "17959464000000000000e-7"] {
            let (outcome, p) = parse(#"{"ts":\#(text),"event":"reconnect","meeting":"m","uid":"u"}"#)
            #expect(outcome == .event, "\(text)")
            #expect(p.ts == 1_795_946_400_000, "\(text)")
        }
    }

    @Test func mosZeroAndNullAreAccepted() {
        #expect(parse(report(#""loss":0,"rtt":0,"jitter":0,"bitrate":0,"mos":0"#)).1.report.mos == 0)
        #expect(parse(report(#""loss":0,"rtt":0,"jitter":0,"bitrate":0,"mos":null"#)).1.report.mos == nil)
    }

    @Test("payload rules of each known event", arguments: [
        ("meeting_join", #""engine":"sfu""#, nil),
        ("meeting_join", #""engine":"p2p""#, nil),  // format 1.2
        ("meeting_join", #""engine":"mesh""#, "engine: \"mesh\" is not one of \"sfu\", \"cdn\", \"p2p\""),
        ("meeting_join", #""title":"x""#, "engine: missing"),
        ("meeting_join", #""engine":"cdn","title":5"#, "title: must be a string"),
        ("disconnect", #""error":"x""#, "reason: missing"),
        ("disconnect", #""reason":"network","error":null"#, nil),
        ("connection_quality_change", #""tier":1"#, "tier: must be a string"),
        ("active_speakers_change", #""speakers":["a",1]"#, "speakers: must be an array of uid strings"),
        ("active_speakers_change", #""speakers":[]"#, nil),
        ("active_speakers_change", #""speakers":"a""#, "speakers: must be an array"),
        ("stream_subscribe", #""publisher":"b","track":"t","kind":"audio""#, "kind: \"audio\" is not one of"),
        ("stream_subscribe", #""publisher":"b","kind":"camera""#, "track: missing"),
        ("stream_unsubscribe", #""track":"t""#, "publisher: missing"),
        ("receive_stream_status", #""publisher":"b","track":"t","timedOut":"yes""#, "timedOut: must be true or false"),
        ("receive_stream_status", #""publisher":"b","track":"t""#, "timedOut: missing"),
        ("user_enter", "", "target: missing"),
        ("user_leave", #""target":"b""#, nil),
        ("member_media_state", #""target":"b","media":"mic","on":true"#, "byAdmin: missing"),
        ("member_media_state", #""target":"b","media":"screen","on":true,"byAdmin":false"#, "media: \"screen\" is not one of"),
        ("member_media_state", #""target":"b","media":"camera","on":false,"byAdmin":true,"opUid":"h""#, nil),
        ("room_title_change", #""title":"a""#, "previousTitle: missing"),
        ("room_share_start", #""publisher":"b""#, nil),
        ("room_share_stop", "", "publisher: missing"),
    ])
    func payloadRules(event: String, fields: String, expected: String?) {
        let line = "{\(envelope),\"event\":\"\(event)\"\(fields.isEmpty ? "" : ",")\(fields)}"
        if let expected {
            #expect(reason(line)?.hasPrefix(expected) == true, "\(line) -> \(reason(line) ?? "accepted")")
        } else {
            #expect(parse(line).0 == .event, "\(line) -> \(reason(line) ?? "")")
        }
    }

    @Test func payloadsBuildAndRoundTripThroughCanonicalJSON() {
        let line = "{\(envelope),\"event\":\"member_media_state\",\"opUid\":\"h\",\"byAdmin\":true,\"on\":false,\"media\":\"camera\",\"target\":\"b\",\"extra\":1}"
        let (outcome, p) = parse(line)
        #expect(outcome == .event)
        let payload = p.payload()
        #expect(payload == .memberMediaState(target: "b", media: "camera", on: false, byAdmin: true, opUid: "h"))
        #expect(payload.canonicalJSON == #"{"target":"b","media":"camera","on":false,"byAdmin":true,"opUid":"h"}"#)
        var again = LineParser(nowMs: 0)
        let text = Array(payload.canonicalJSON.utf8)
        #expect(text.withUnsafeBufferPointer { again.payload(of: .memberMediaState, canonicalJSON: $0) } == payload)
    }
}

@Suite struct FieldKeyTests {
    /// The scanner's key table is derived from the event table's names; every
    /// name must find its own slot and near-misses none.
    @Test func everyKeyMatchesItselfAndNothingElse() {
        let table = KeyTable.shared
        for key in FieldKey.allCases {
            let bytes = Array(key.name.utf8)
            #expect(bytes.withUnsafeBufferPointer { table.match($0) } == key)
            for variant in [key.name + "x", String(key.name.dropLast()), key.name.uppercased(), "x" + key.name.dropFirst()]
            where !FieldKey.names.contains(variant) {
                let other = Array(variant.utf8)
                #expect(other.withUnsafeBufferPointer { table.match($0) } == nil, "\(variant)")
            }
        }
    }

    @Test func everyPayloadFieldHasAKey() {
        #expect(Array(FieldKey.names.prefix(4)) == ["ts", "event", "meeting", "uid"])
        for d in EventCatalog.descriptors {
            for f in d.fields { #expect(FieldKey.names.contains(f.name), "\(d.name).\(f.name)") }
        }
        #expect(Set(FieldKey.names).count == FieldKey.names.count)
    }

    @Test func longKeysUseBothWords() {
        let table = KeyTable(["abcdefghijklmnop", "abcdefghijklmnoq", "abcdefgh"])
        for (i, name) in ["abcdefghijklmnop", "abcdefghijklmnoq", "abcdefgh"].enumerated() {
            #expect(Array(name.utf8).withUnsafeBufferPointer { table.match($0) }?.rawValue == i)
        }
        #expect(Array("abcdefghijklmnor".utf8).withUnsafeBufferPointer { table.match($0) } == nil)
    }
}

@Suite struct CanonicalPayloadTests {
    /// The byte writer used by ingest must give exactly the text of the
    /// String-based canonical form, or duplicates would slip through.
    @Test(arguments: [
        #""event":"meeting_join","engine":"sfu","title":"A \"q\" \u00e9\n\t\u0001 <b>&</b> 🎉""#,
        #""event":"meeting_join","title":null,"engine":"cdn""#,
        #""event":"disconnect","reason":"network","error":"time\/out""#,
        #""event":"active_speakers_change","speakers":["a","b\\c",  "d"]"#,
        #""event":"active_speakers_change","speakers":[]"#,
        #""event":"stream_subscribe","kind":"screen","track":"t","publisher":"p""#,
        #""event":"receive_stream_status","publisher":"p","track":"t","timedOut":false"#,
        #""event":"member_media_state","target":"b","media":"mic","on":true,"byAdmin":false,"opUid":"h""#,
        #""event":"room_title_change","title":"x","previousTitle":"y\u2028""#,
        #""event":"room_share_stop","publisher":"p""#, #""event":"reconnect""#,
    ])
    func bytesEqualTheStringForm(fields: String) {
        let (outcome, p) = parse("{\(envelope),\(fields)}")
        #expect(outcome == .event)
        var bytes: [UInt8] = []
        p.appendCanonicalPayload(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == p.payload().canonicalJSON)
    }
}

/// The scanner's word-at-a-time paths against their byte-at-a-time meaning.
@Suite struct ScannerWordTests {
    static func isSpecial(_ b: UInt8) -> Bool { b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 }

    @Test func specialBytesFlagsTheFirstSpecialByteExactly() {
        var rng = SplitMix64(seed: 42)
        // Mostly plain ASCII with specials sprinkled in, so that every
        // position and every neighbour of a special byte is tried.
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x80, 0xC3, 0xFF]
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x41, 0x30]
        for _ in 0..<200_000 {
            var bytes = (0..<8).map { _ in rng.chance(0.85) ? plain[rng.below(plain.count)] : specials[rng.below(specials.count)] }
            if rng.chance(0.1) { bytes = (0..<8).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
            let w = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            let flagged = JSONScanner.specialBytes(w)
            let first = bytes.firstIndex(where: ScannerWordTests.isSpecial)
            if let first {
                #expect(flagged != 0 && flagged.trailingZeroBitCount >> 3 == first, "\(bytes)")
            } else {
                #expect(flagged == 0, "\(bytes)")
            }
        }
    }

    @Test func wholeWordKeyMatchAgreesWithTheByteMatch() {
        let table = KeyTable.shared
        var names = FieldKey.names + ["", "t", "tss", "meeting_", "uidx", "bitrateX", "a_rather_long_key", "event\u{0}"]
        names += FieldKey.names.map { String($0.dropLast()) }
        for name in names {
            let key = Array(name.utf8)
            // The key at the start, in the middle and at the very end of a
            // line, so that both the word loads and the fallback run.
            for (before, after) in [(0, 20), (3, 17), (5, 0), (0, 1), (9, 15)] {
                let line = [UInt8](repeating: 0x20, count: before) + key + [UInt8](repeating: 0x3A, count: after)
                line.withUnsafeBufferPointer { buffer in
                    let expected = table.match(UnsafeBufferPointer(rebasing: buffer[before..<(before + key.count)]))
                    #expect(table.match(in: buffer, before, before + key.count) == expected, "\(name) at \(before)")
                }
            }
        }
    }

    /// Field names go through `shortKey` when plain and short, else through
    /// `scanString` and `lookup`: either way a known name, and only a known
    /// name, fills its field, and a bad name is a syntax error.
    @Test func fieldNamesOfEveryLengthAndByteFindTheirKeys() {
        var rng = SplitMix64(seed: 7)
        var names = FieldKey.names.map { Array($0.utf8) }
        names += FieldKey.names.map { Array($0.utf8.dropLast()) } + FieldKey.names.map { Array($0.utf8) + [0x78] }
        names += [[], [0x5C, 0x22], [0x5C, 0x75, 0x30, 0x30, 0x37, 0x34, 0x73], [0xC3, 0xA9], [0x74, 0x01], [0xFF]]
        let alphabet: [UInt8] = Array("tsuidmeg_\\\"".utf8) + [0x01, 0xC3, 0xA9, 0x80]
        for _ in 0..<3000 { names.append((0..<rng.below(20)).map { _ in alphabet[rng.below(alphabet.count)] }) }
        for name in names {
            let decoded = (try? JSONSerialization.jsonObject(with: Data([0x7B, 0x22] + name + Array("\":1}".utf8)))) as? [String: Any]
            let known = decoded.flatMap { $0.keys.first }.flatMap { FieldKey.names.firstIndex(of: $0) }
            // The name first (then at the line's end, where the words cannot
            // be loaded) and after another field.
            for (prefix, suffix) in [("{\"", "\":1," + String(repeating: " ", count: 20) + "\"x\":2}"), ("{\"", "\":1}"), ("{\"x\":2,\"", "\":1}")] {
                var scanner = JSONScanner()
                let line = Array(prefix.utf8) + name + Array(suffix.utf8)
                let ok = line.withUnsafeBufferPointer { b in (try? scanner.scan(b)) != nil }
                #expect(ok == (decoded != nil), "\(name) in \(String(decoding: line, as: UTF8.self))")
                guard ok else { continue }
                for slot in FieldKey.names.indices {
                    #expect((scanner[slot: slot].type == .number) == (slot == known), "\(name): slot \(slot)")
                }
            }
        }
    }

    /// The short-number path gives what the digit-by-digit one gives (the
    /// same value and end, or an error at the same column), for numbers of
    /// every length around the 18-digit switch and for bad ones.
    @Test func shortNumbersScanAsTheLongPathDoes() {
        var rng = SplitMix64(seed: 99)
        let scanner = JSONScanner()
        var texts = ["0", "-0", "0.0", "1e400", "1e-40000", "5e30000", "007", "-", "1.", ".5", "1e", "1e+", "2E-3", "0.05"]
        for _ in 0..<20_000 {
            var t = rng.chance(0.2) ? "-" : ""
            let intDigits = rng.below(22)
            t += intDigits == 0 ? "0" : String((rng.below(9) + 1)) + String((1..<intDigits).map { _ in Character(String(rng.below(10))) })
            if rng.chance(0.6) { t += "." + String((0..<rng.below(22)).map { _ in rng.chance(0.3) ? "0" : Character(String(rng.below(10))) }) }
            if rng.chance(0.2) { t += (rng.chance(0.5) ? "e" : "E") + ["", "+", "-"][rng.below(3)] + String(rng.below(40000)) }
            if rng.chance(0.05) { t += "x" }
            texts.append(t)
        }
        for text in texts {
            let bytes = Array(text.utf8) + [0x2C]
            bytes.withUnsafeBufferPointer { b in
                var p1 = 0, p2 = 0
                let fast = Result { () throws(SyntaxError) in try scanner.scanNumber(b, &p1) }
                let slow = Result { () throws(SyntaxError) in try scanner.scanLongNumber(b, &p2) }
                switch (fast, slow) {
                case (.success(let a), .success(let b)):
                    #expect(a == b && p1 == p2, "\(text): \(a) at \(p1) vs \(b) at \(p2)")
                case (.failure(let a), .failure(let b)):
                    #expect(a.column == b.column && a.message == b.message, "\(text)")
                default:
                    Issue.record("\(text): \(fast) vs \(slow)")
                }
            }
        }
    }

    @Test func everyEventNameAndNoNearMissFindsItsKind() {
        let plan = ParsePlan.shared
        for d in EventCatalog.descriptors {
            var near = [d.nameBytes.dropLast(), d.nameBytes + [0x5F], [0x5F] + d.nameBytes.dropFirst()].map { Array($0) }
            near.append(d.nameBytes.map { $0 == 0x5F ? 0x2D : $0 })  // '-' for '_'
            d.nameBytes.withUnsafeBufferPointer { #expect(plan.kind(named: $0) == d.kind, "\(d.name)") }
            for bytes in near where EventCatalog.byName[bytes] == nil {
                bytes.withUnsafeBufferPointer { #expect(plan.kind(named: $0) == nil, "\(String(decoding: bytes, as: UTF8.self))") }
            }
        }
        #expect([UInt8]().withUnsafeBufferPointer { plan.kind(named: $0) } == nil)
    }
}
