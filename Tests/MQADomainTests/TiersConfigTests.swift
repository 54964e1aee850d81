import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

@Suite("Tier config")
struct TiersConfigTests {
    func parse(_ text: String) throws(TierConfigError) -> TierConfig {
        try TierConfig.parse(Data(text.utf8))
    }

    func message(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch { return error.description }
    }

    @Test func defaultsMatchTheSpec() throws {
        let c = try parse("{}")
        #expect(c == TierConfig())
        #expect(c.json.rendered() == """
            {"thresholds":[4,3.6,3.1,2.6],"hysteresis":0.1,"alphaDown":0.8,"alphaUp":0.4,"downDwell":1,"upDwell":2,\
            "coldStartMs":4000,"gapMs":10000,"mos":"sdk","emodel":{"ie":0,"bpl":25.1}}
            """)
        try TierConfig().validate()
    }

    @Test func anySubsetKeepsTheOtherDefaults() throws {
        let c = try parse(#"{"alphaUp": 0.5, "upDwell": 3, "mos": "emodel", "emodel": {"bpl": 10}}"#)
        var expected = TierConfig()
        expected.alphaUp = 0.5
        expected.upDwell = 3
        expected.mos = .emodel
        expected.emodel.bpl = 10
        #expect(c == expected)
    }

    @Test("invalid values are rejected with a message naming the key", arguments: [
        (#"{"alphaUp": 0}"#, #"config key "alphaUp": must be in (0, 1], got 0"#),
        (#"{"alphaDown": 1.5}"#, #"config key "alphaDown": must be in (0, 1], got 1.5"#),
        (#"{"thresholds": [4.0, 3.6, 3.7, 2.6]}"#, #"config key "thresholds": must be strictly decreasing, got [4, 3.6, 3.7, 2.6]"#),
        (#"{"thresholds": [4.0, 3.6, 3.1]}"#, #"config key "thresholds": must be a list of 4 numbers, got [4, 3.6, 3.1]"#),
        (#"{"downDwell": 0}"#, #"config key "downDwell": must be an integer from 1 to 1000000000, got 0"#),
        (#"{"upDwell": 1.5}"#, #"config key "upDwell": must be an integer from 1 to 1000000000, got 1.5"#),
        (#"{"downDwell": 1000000001}"#, #"config key "downDwell": must be an integer from 1 to 1000000000, got 1000000001"#),
        (#"{"coldStartMs": -1}"#, #"config key "coldStartMs": must be an integer number of ms from 0 to 9007199254740992, got -1"#),
        (#"{"gapMs": "10s"}"#, #"config key "gapMs": must be a number, got "10s""#),
        (#"{"hysteresis": true}"#, #"config key "hysteresis": must be a number, got true"#),
        (#"{"hysteresis": -0.1}"#, #"config key "hysteresis": must be a number >= 0, got -0.1"#),
        (#"{"mos": "pesq"}"#, #"config key "mos": must be "sdk" or "emodel", got "pesq""#),
        (#"{"emodel": {"bpl": 0}}"#, #"config key "emodel.bpl": must be a number > 0, got 0"#),
        (#"{"emodel": {"ie": 120}}"#, #"config key "emodel.ie": must be in [0, 95], got 120"#),
        (#"{"emodel": {"Ie": 5}}"#, #"config key "emodel.Ie": unknown key (known: ie, bpl)"#),
        (#"{"alphaup": 0.5}"#, #"config key "alphaup": unknown key (known: thresholds, hysteresis, alphaDown, alphaUp, downDwell, upDwell, coldStartMs, gapMs, mos, emodel)"#),
        (#"[1, 2]"#, #"config: must be a JSON object, got [1, 2]"#),
        (#"{"alphaUp": "#, #"config: not valid JSON: unexpected end at byte 13"#),
        // The last of two was used, unseen.
        (#"{"hysteresis": 0.1, "hysteresis": 0.5}"#, #"config: not valid JSON: key "hysteresis" given twice at byte 21"#),
    ])
    func rejected(text: String, expected: String) {
        #expect(message(text) == expected)
    }

    @Test func validateCatchesHandBuiltConfigs() {
        var c = TierConfig()
        c.thresholds = [4, 4, 3, 2]
        #expect(throws: TierConfigError(key: "thresholds", message: "must be strictly decreasing, got [4, 4, 3, 2]")) {
            try c.validate()
        }
    }
}

@Suite("Tuning grid")
struct TiersGridTests {
    @Test("the product runs over the spec's keys, the last varying fastest")
    func product() throws {
        let grid = try TuningGrid.parse(Data("""
            {"hysteresis": [0, 0.1, 0.2], "upDwell": [1, 2, 3],
             "thresholds": [[4.0, 3.6, 3.1, 2.6], [4.2, 3.8, 3.3, 2.8]]}
            """.utf8))
        let configs = grid.configs()
        #expect(configs.count == 18)
        #expect(configs[0].thresholds == [4.0, 3.6, 3.1, 2.6])
        #expect(configs[0].hysteresis == 0 && configs[0].upDwell == 1)
        #expect(configs[1].upDwell == 2)
        #expect(configs[3].hysteresis == 0.1)
        #expect(configs[9].thresholds == [4.2, 3.8, 3.3, 2.8])
        #expect(configs.allSatisfy { $0.alphaUp == 0.4 && $0.gapMs == 10000 })
        #expect(try TuningGrid.parse(Data("{}".utf8)).configs() == [TierConfig()])
    }

    @Test("emodel candidates are objects merged onto the default")
    func emodelAxis() throws {
        let configs = try TuningGrid.parse(Data(#"{"mos": ["emodel"], "emodel": [{"ie": 11}, {"bpl": 4.3}]}"#.utf8)).configs()
        #expect(configs.map(\.emodel) == [EModelParams(ie: 11, bpl: 25.1), EModelParams(ie: 0, bpl: 4.3)])
        #expect(configs.allSatisfy { $0.mos == .emodel })
    }

    @Test("grid errors name the key and the candidate", arguments: [
        (#"{"upDwell": [1, 0]}"#, #"grid key "upDwell": candidate 2: must be an integer from 1 to 1000000000, got 0"#),
        (#"{"thresholds": [4.0, 3.6, 3.1, 2.6]}"#, #"grid key "thresholds": candidate 1: must be a list of 4 numbers, got 4"#),
        (#"{"upDwell": 2}"#, #"grid key "upDwell": must be a non-empty list of candidate values, got 2"#),
        (#"{"upDwell": []}"#, #"grid key "upDwell": must be a non-empty list of candidate values, got []"#),
        (#"{"emodel": [{"bpl": -1}]}"#, #"grid key "emodel.bpl": candidate 1: must be a number > 0, got -1"#),
        (#"{"hysterisis": [0.1]}"#, #"grid key "hysterisis": unknown key (known: thresholds, hysteresis, alphaDown, alphaUp, downDwell, upDwell, coldStartMs, gapMs, mos, emodel)"#),
    ])
    func rejected(text: String, expected: String) {
        var got: String?
        do { _ = try TuningGrid.parse(Data(text.utf8)) } catch { got = error.description }
        #expect(got == expected)
    }
}
