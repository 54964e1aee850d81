import Foundation
import Testing
@testable import MQABase
@testable import MQAAnalysis
@testable import MQAIngest

/// Configs, grids and partials are read with `ExactJSONReader`: every
/// number the nearest double to its text (tiers.md is exact to the bit).
@Suite struct ExactJSONReaderTests {
    /// Random doubles written with 15 to 17 significant digits (as tools
    /// write computed values) come back as `Double(text)`, the correctly
    /// rounded one. Foundation's reader on Linux missed about half of the
    /// 17-digit ones by a step or two.
    @Test func numbersAreTheNearestDouble() throws {
        var rng = SplitMix64(seed: 17)
        for _ in 0..<20_000 {
            let x = Double(rng.below(1_000_000)) / 1000 + rng.unit()
            let text = String(format: "%.\(15 + rng.below(3))g", x)
            let read = try #require(ExactJSONReader.parse(Data("[\(text)]".utf8)) as? [Any])
            #expect((read[0] as? NSNumber)?.doubleValue == Double(text)!, "\(text)")
        }
    }

    @Test func aConfigThresholdIsReadToTheBit() throws {
        let config = try TierConfig.parse(Data(#"{"thresholds": [4.0, 3.6, 3.4000000000000004, 2.6]}"#.utf8))
        #expect(config.thresholds[2] == 3.4000000000000004)
        #expect(config.thresholds[2].bitPattern == Double("3.4000000000000004")!.bitPattern)
    }

    @Test func valuesAreWhatJSONSerializationGives() throws {
        let text = #"{"a": [1, -2.5e3, true, false, null, "x\u00e9\n\ud83d\ude00"], "b": {"c": 9007199254740993}, "a2": 0}"#
        let object = try #require(ExactJSONReader.parse(Data(text.utf8)) as? [String: Any])
        let a = try #require(object["a"] as? [Any])
        #expect((a[0] as? NSNumber)?.intValue == 1 && (a[1] as? NSNumber)?.doubleValue == -2500)
        #expect(JSONValue.number(a[2]) == nil && JSONValue.describe(a[2]) == "true" && JSONValue.describe(a[3]) == "false")
        #expect(a[4] is NSNull && a[5] as? String == "xé\n😀")
        #expect(((object["b"] as? [String: Any])?["c"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
    }

    /// An unpaired surrogate escape is JSON (RFC 8259, 8.2): U+FFFD, as
    /// the line scanner reads it (a context line holding one was rejected
    /// as "not a JSON object").
    @Test func anUnpairedSurrogateIsTheReplacementCharacter() throws {
        let object = try #require(ExactJSONReader.parse(Data(#"{"a": "x\ud83c", "b": "\udc00\ud83c\udf89", "c": "\ud83cA"}"#.utf8)) as? [String: Any])
        #expect(object["a"] as? String == "x\u{FFFD}" && object["b"] as? String == "\u{FFFD}🎉" && object["c"] as? String == "\u{FFFD}A")
        #expect(throws: ExactJSONReader.Failure.self) { try ExactJSONReader.parse(Data(#""\ud83c\uZZZZ""#.utf8)) }
    }

    /// Foundation's parser refuses such an escape: the rtcstats metadata
    /// lines it reads get `\ufffd` in its place (the identity line of a
    /// name cut mid-emoji lost the participant's meeting and uid).
    @Test func metadataForFoundationHasNoUnpairedSurrogate() throws {
        let text = #"{"displayName":"Ann \ud83c","confName":"standup","x":"\\ud83c","pair":"\ud83c\udf89","low":"\udc00"}"#
        let data = Array(text.utf8).withUnsafeBufferPointer { RTCStatsImporter.foundationJSON($0) }
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["displayName"] as? String == "Ann \u{FFFD}" && object["confName"] as? String == "standup")
        #expect(object["x"] as? String == "\\ud83c" && object["pair"] as? String == "🎉" && object["low"] as? String == "\u{FFFD}")
        let plain = Array(#"{"a":"b"}"#.utf8)
        #expect(plain.withUnsafeBufferPointer { RTCStatsImporter.foundationJSON($0) } == Data(plain))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "1e", "\"\\x\"", "\"\\ud8\"", "[1] 2", "tru", "1e400"])
    func badDocumentsAreRefused(_ text: String) {
        #expect(throws: ExactJSONReader.Failure.self) { try ExactJSONReader.parse(Data(text.utf8)) }
    }
}
