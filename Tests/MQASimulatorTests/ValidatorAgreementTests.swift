import Testing
@testable import MQASimulator
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// Every line the simulator writes must pass the real ingest validator:
/// a demo that produced rejects would teach users the wrong thing.
@Suite struct ValidatorAgreementTests {
    @Test func everyGeneratedLinePassesTheIngestValidator() throws {
        let simulator = Simulator(seed: 11, meetings: 12)
        var parser = LineParser(nowMs: 1_800_000_000_000)
        var events = 0
        var ignored = 0
        var rejected: [String] = []
        for index in 0..<12 {
            for file in simulator.meeting(index).files {
                for line in file.contents.split(separator: 0x0A) {
                    let bytes = Array(line)
                    switch bytes.withUnsafeBufferPointer({ parser.parse($0) }) {
                    case .event: events += 1
                    case .ignored: ignored += 1
                    case .rejected(let reason):
                        rejected.append(reason + ": " + String(decoding: bytes.prefix(200), as: UTF8.self))
                    }
                }
            }
        }
        #expect(rejected.isEmpty, "\(rejected.prefix(5))")
        #expect(events > 10_000)
        #expect(ignored > 0)  // the simulator logs unknown events on purpose
    }
}
