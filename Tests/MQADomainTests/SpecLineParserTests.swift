import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// `spec/tiers.md`, "MOS of one report": the SDK's `mos` is used when it is
/// in [1, 5]; 0 and null mean "not available" (valid lines whose MOS the
/// E-model derives), or always the E-model with `"mos": "emodel"`.
@Suite("Spec: MOS of one report")
struct SpecLineParserTests {
    @Test("MOS of one report: a quality_report with mos 0 or null is a valid line, not a rejected one", arguments: [
        ("0", Double?.some(0)), ("null", nil), ("1", 1), ("5", 5), ("4.31", 4.31),
    ] as [(String, Double?)])
    func notAvailableIsValid(text: String, mos: Double?) {
        let (outcome, p) = parse(report("\"loss\":0,\"rtt\":0,\"jitter\":0,\"bitrate\":0,\"mos\":\(text)"))
        #expect(outcome == .event)
        #expect(p.report.mos == mos)
    }

    /// The E-model of the spec for rtt 50, loss 1, jitter 5 and the default
    /// codec, each step in the spec's order.
    static let emodel: Double = {
        let d = 50.0 / 2 + 2 * 5.0 + 10
        let id = d < 160 ? d / 40 : (d - 120) / 10
        let ie = 0 + (95 - 0) * 1.0 / (1.0 + 25.1)
        let r = 93.2 - id - ie
        return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
    }()

    @Test("MOS of one report: the SDK's mos in [1, 5], else (0, null) or with \"mos\": \"emodel\" the E-model", arguments: [
        (4.2, MOSSource.sdk, 4.2), (1.0, .sdk, 1.0), (5.0, .sdk, 5.0), (0.0, .sdk, SpecLineParserTests.emodel), (.nan, .sdk, SpecLineParserTests.emodel),
        (4.2, .emodel, SpecLineParserTests.emodel),
    ])
    func reportMOS(sdk: Double, source: MOSSource, expected: Double) {
        #expect(ReportMOS.mos(sdkMOS: sdk, rtt: 50, loss: 1, jitter: 5, source: source, emodel: EModelParams()) == expected)
    }
}
