import Foundation
@testable import MQASimulator

/// One client's log, split and parsed once.
final class ParsedClientLog: @unchecked Sendable {
    let uid: String
    let lines: [Substring]
    let objects: [[String: Any]]

    init(uid: String, contents: [UInt8]) {
        self.uid = uid
        lines = LineSelfCheck.lines(contents)
        objects = lines.compactMap { LineSelfCheck.parse($0) }
    }

    func events(_ name: String) -> [[String: Any]] {
        objects.filter { $0["event"] as? String == name }
    }
}

/// A meeting with its parsed logs.
struct FleetMeeting: @unchecked Sendable {
    let simulated: SimulatedMeeting
    let logs: [ParsedClientLog]
    var id: String { simulated.id }
    var engine: Engine { simulated.engine }
    var truth: MeetingTruth { simulated.truth }
}

/// A generated fleet shared by the tests (generated and parsed once).
enum Fleet {
    static let seed: UInt64 = 2026
    static let size = 28
    static let simulator = Simulator(seed: seed, meetings: size)
    /// Generated and parsed on all cores (JSONSerialization dominates).
    static let all: [FleetMeeting] = {
        let slots = Slots(count: size)
        DispatchQueue.concurrentPerform(iterations: size) { i in
            let m = simulator.meeting(i)
            slots.set(i, FleetMeeting(simulated: m, logs: m.files.map { ParsedClientLog(uid: $0.uid, contents: $0.contents) }))
        }
        return slots.values.map { $0! }
    }()

    private final class Slots: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var values: [FleetMeeting?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ v: FleetMeeting) { lock.lock(); values[i] = v; lock.unlock() }
    }

    static func ts(_ o: [String: Any]) -> Int64 { LineSelfCheck.timestamp(o["ts"]) ?? -1 }
}
