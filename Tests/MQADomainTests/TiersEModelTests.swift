import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

@Suite("E-model")
struct TiersEModelTests {
    @Test("R → MOS at the G.107 category edges", arguments: [
        (93.2, 4.409), (80.0, 4.024), (70.0, 3.597), (60.0, 3.100), (50.0, 2.575),
    ])
    func rToMOS(r: Double, expected: Double) {
        #expect((EModel.mos(r: r) * 1000).rounded() / 1000 == expected)
    }

    @Test func rClampsAtBothEnds() {
        #expect(EModel.mos(r: 0) == 1)
        #expect(EModel.mos(r: -5) == 1)
        #expect(EModel.mos(r: 100) == 4.5)
        #expect(EModel.mos(r: 120) == 4.5)
    }

    @Test("measurements → MOS, in the spec's order of operations")
    func fromMeasurements() {
        let params = EModelParams()  // ie 0, bpl 25.1
        // Perfect network: d = 10, Id = 0.25, Ie = 0, R = 92.95.
        let r = 93.2 - 10.0 / 40 - 0.0
        #expect(EModel.mos(rtt: 0, loss: 0, jitter: 0, params: params) == EModel.mos(r: r))
        // Long delay takes the second branch: d = 150 + 40 + 10 = 200, Id = 8.
        let ie = 0 + (95 - 0) * 5.0 / (5.0 + 25.1)
        let expected = EModel.mos(r: 93.2 - (200.0 - 120) / 10 - ie)
        #expect(EModel.mos(rtt: 300, loss: 5, jitter: 20, params: params) == expected)
        // A network that loses everything is the floor (the simulator's worst links).
        #expect(EModel.mos(rtt: 2_000, loss: 100, jitter: 500, params: params) == 1)
    }

    @Test func sdkMOSUsedOnlyInRange() {
        let e = EModelParams()
        let emodel = EModel.mos(rtt: 100, loss: 1, jitter: 10, params: e)
        func mos(_ sdk: Double, _ source: MOSSource = .sdk) -> Double {
            ReportMOS.mos(sdkMOS: sdk, rtt: 100, loss: 1, jitter: 10, source: source, emodel: e)
        }
        #expect(mos(3.3) == 3.3)
        #expect(mos(1) == 1)
        #expect(mos(5) == 5)
        #expect(mos(0) == emodel)
        #expect(mos(.nan) == emodel)
        #expect(mos(3.3, .emodel) == emodel)
    }
}
