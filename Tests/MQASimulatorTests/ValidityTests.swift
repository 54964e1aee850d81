import Foundation
import Testing
@testable import MQASimulator
import MQABase

@Suite struct ValidityTests {
    private var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test func everyLineIsValidPerTheSpec() {
        var checked = 0
        var failures: [String] = []
        for m in Fleet.all {
            for f in m.logs {
                // Every line parsed (ParsedClientLog keeps only JSON objects) ...
                #expect(f.objects.count == f.lines.count)
                for (line, o) in zip(f.lines, f.objects) {
                    #expect(line.utf8.count < 1 << 20)
                    // ... and follows the envelope and payload rules.
                    if let reason = LineSelfCheck.check(o, now: now) {
                        failures.append("\(reason): \(line)")
                    }
                    checked += 1
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(checked > 30_000)
    }

    @Test func mobileHeavyLinesAreValidToo() throws {
        var failures = 0
        let now = self.now
        _ = try Simulator(seed: 8, meetings: 6, parameters: .mobileHeavy).write { bytes in
            for line in LineSelfCheck.lines(Array(bytes)) where LineSelfCheck.check(line, now: now) != nil {
                failures += 1
            }
        }
        #expect(failures == 0)
    }

    @Test func envelopeMatchesTheMeetingAndClient() {
        for m in Fleet.all {
            for f in m.logs {
                for o in f.objects {
                    #expect(o["meeting"] as? String == m.id)
                    #expect(o["uid"] as? String == f.uid)
                }
            }
        }
    }

    @Test func idsHaveTheirShapes() {
        var ids = Set<String>()
        for m in Fleet.all {
            #expect(m.id.hasPrefix("m-") && m.id.count == 18)
            #expect(SafeFileName.stem(m.id) == m.id)  // the folder is named by the id itself
            ids.insert(m.id)
            let uids = m.logs.map(\.uid)
            #expect(Set(uids).count == uids.count)
            for u in uids {
                #expect(u.hasPrefix("u-") && u.count == 6)
                #expect(SafeFileName.stem(u) == u)
            }
            for s in m.truth.subscriptions {
                #expect(s.track == s.publisher + "-cam" || s.track == s.publisher + "-screen")
            }
        }
        #expect(ids.count == Fleet.all.count)
    }

    @Test func timestampsAreInThePastAndInsideTheMeeting() {
        let now = self.now
        for m in Fleet.all {
            for f in m.logs {
                for o in f.objects {
                    let ts = Fleet.ts(o)
                    // device_change alone may come before the join (set-up), by up to a minute.
                    let earliest = m.truth.start - (o["event"] as? String == "device_change" ? 60_000 : 0)
                    #expect(ts >= earliest && ts <= m.truth.end + 1_000)
                    #expect(ts < now)
                }
            }
        }
    }

    @Test func invalidParametersAreRejected() {
        var p = SimulationParameters()
        p.network.fixedTransitions[0][0] = 0.5
        p.meetings.cdnShare = 2
        #expect(p.problems().count == 2)
        #expect(throws: SimulationError.self) { try Simulator(seed: 1, meetings: 1, parameters: p).write { _ in } }
        #expect(SimulationParameters.default.problems().isEmpty)
        #expect(SimulationParameters.mobileHeavy.problems().isEmpty)
        #expect(SimulationParameters.tidy.problems().isEmpty)
    }
}
