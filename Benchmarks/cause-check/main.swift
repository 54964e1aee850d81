// cause-check: how often an incident names the true side of a stall.
//
// The simulator knows why each stall happened (the viewer's network or
// decoder, or the sender's camera); the logs only hint at it. This generates a fleet, runs
// it through the real ingest and the incident finder, and for every true
// stall finds the incident that holds it and compares sides:
//   the viewer's side: own_network, own_device, or the viewer's disconnect
//   (for the viewer's network and decoder);
//   the sender's side: publisher.
// Usage: swift run -c release cause-check [MEETINGS] [SEED]   (120, 2026)
import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest
import MQASimulator

let args = CommandLine.arguments
let meetings = args.count > 1 ? Int(args[1]) ?? 120 : 120
let seed = args.count > 2 ? UInt64(args[2]) ?? 2026 : 2026
let simulator = Simulator(seed: seed, meetings: meetings)
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mqa-cause-check-\(getpid())")
defer { try? FileManager.default.removeItem(at: dir) }
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
let store = try EventStore(path: dir.appendingPathComponent("store.sqlite").path)
var truths: [String: MeetingTruth] = [:]
var paths: [String] = []
for i in 0..<meetings {
    let m = simulator.meeting(i)
    truths[m.id] = m.truth
    for f in m.files {
        let path = dir.appendingPathComponent("\(m.id)-\(f.uid).ndjson").path
        try Data(f.contents).write(to: URL(fileURLWithPath: path))
        paths.append(path)
    }
}
_ = try Ingester(store: store).ingest(paths: paths)

enum Side: String { case viewer, sender, unknown, missed }
var counts: [StallCause: [Side: Int]] = [:]
var byState: [String: [Side: Int]] = [:]
var byEngine: [String: [String: Int]] = [:]
var explain = CommandLine.arguments.firstIndex(of: "--explain").flatMap { Int(CommandLine.arguments[$0 + 1]) } ?? 0
var byCause: [IncidentCause: Int] = [:]
var incidentsTotal = 0
var wrong: [String: Int] = [:]
for (id, truth) in truths.sorted(by: { $0.key < $1.key }) {
    guard let log = try store.meetingLog(try store.resolveMeeting(id), lenient: false) else { continue }
    let analysis = MeetingAnalysis.analyze(log, config: TierConfig())
    let incidents = IncidentFinder.find(log, analysis)
    incidentsTotal += incidents.count
    for i in incidents { byCause[i.cause, default: 0] += 1 }
    for s in truth.stalls {
        // A shared stall lives in its track's incident even when the
        // viewer's own (network) incident spans the same seconds.
        let covers = { (i: Incident) in i.startTs <= s.start && s.start <= i.endTs }
        let holding = incidents.first { covers($0) && $0.track == s.track && $0.uid == s.publisher }
            ?? incidents.first { covers($0) && $0.track == nil && $0.uid == s.subscriber }
        let side: Side
        switch holding?.cause {
        case nil: side = .missed
        case .publisher: side = .sender
        case .unknown: side = .unknown
        default: side = .viewer
        }
        counts[s.cause, default: [:]][side, default: 0] += 1
        if side != .unknown, (side == .sender) != (s.cause == .senderCameraFroze), let c = holding?.cause {
            wrong["\(s.cause.rawValue) → \(c.rawValue)", default: 0] += 1
        }
        if explain > 0, side == .unknown, s.cause == .subscriberNetwork, s.subscriberState != .good,
            let client = log.clients.first(where: { $0.uid == s.subscriber })
        {
            explain -= 1
            let r = client.reports
            let near = (0..<r.ts.count).filter { abs(r.ts[$0] - s.start) <= 8000 }
            print("stall \(s.subscriber) \(s.track) at \(s.start) (\(s.end - s.start) ms, \(s.subscriberState.name)): "
                  + near.map { "[\(r.ts[$0] - s.start) l\(r.loss[$0]) r\(r.rtt[$0]) j\(r.jitter[$0])]" }.joined(separator: " "))
        }
        byState["\(s.cause.rawValue) in \(s.subscriberState.name)", default: [:]][side, default: 0] += 1
        byEngine[truth.engine.rawValue, default: [:]][side == (s.cause == .senderCameraFroze ? .sender : .viewer) ? "right" : side.rawValue, default: 0] += 1
    }
}
let total = counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }
var right = 0
for (cause, sides) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
    let n = sides.values.reduce(0, +)
    let expected: Side = cause == .senderCameraFroze ? .sender : .viewer
    right += sides[expected] ?? 0
    let parts = [Side.viewer, .sender, .unknown, .missed].map { "\($0.rawValue) \(sides[$0] ?? 0)" }.joined(separator: ", ")
    print("\(cause.rawValue): \(n) stalls: \(parts)")
}
if CommandLine.arguments.contains("--states") {
    for (k, sides) in byState.sorted(by: { $0.key < $1.key }) {
        print("  \(k): " + [Side.viewer, .sender, .unknown, .missed].map { "\($0.rawValue) \(sides[$0] ?? 0)" }.joined(separator: ", "))
    }
}
for (engine, c) in byEngine.sorted(by: { $0.key < $1.key }) {
    let n = c.values.reduce(0, +)
    print("  \(engine): \(n) stalls: " + ["right", "viewer", "sender", "unknown"].map { "\($0) \(c[$0] ?? 0)" }.joined(separator: ", "))
}
for (k, n) in wrong.sorted(by: { $0.key < $1.key }) { print("  wrong: \(k) \(n)") }
let unknown = counts.values.reduce(0) { $0 + ($1[.unknown] ?? 0) }
func pct(_ a: Int, _ b: Int) -> String { b == 0 ? "-" : String(format: "%.1f %%", 100 * Double(a) / Double(b)) }
print("stalls \(total): right side \(right) (\(pct(right, total))), unknown \(unknown) (\(pct(unknown, total)))")
print("incidents \(incidentsTotal): " + byCause.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))
