import Foundation
import MQASimulator

// Generation speed: meetings until at least 1M quality reports, written to
// a sink that only counts bytes (pure generation + encoding cost).
// Usage: sim-bench [reports] [seed]
// sim-bench --dump MEETINGS SEED: the stream to stdout instead.
let args = CommandLine.arguments
if args.count > 1 && args[1] == "--dump" {
    let n = args.count > 2 ? Int(args[2]) ?? 1 : 1
    let s = args.count > 3 ? UInt64(args[3]) ?? 1 : 1
    _ = try Simulator(seed: s, meetings: n).write { FileHandle.standardOutput.write(Data($0)) }
    exit(0)
}
// sim-bench --files DIR [MEETINGS] [SEED]: one file per client per meeting, timed.
if args.count > 2 && args[1] == "--files" {
    let n = args.count > 3 ? Int(args[3]) ?? Simulator.defaultMeetings : Simulator.defaultMeetings
    let s = args.count > 4 ? UInt64(args[4]) ?? Simulator.defaultSeed : Simulator.defaultSeed
    let clock = ContinuousClock()
    let start = clock.now
    let summary = try Simulator(seed: s, meetings: n).writeFiles(to: URL(fileURLWithPath: args[2]))
    print(summary, clock.now - start)
    exit(0)
}
let target = args.count > 1 ? Int(args[1]) ?? 1_000_000 : 1_000_000
let seed = args.count > 2 ? UInt64(args[2]) ?? 7 : 7

// Size the run from a sample so that one timed run reaches the target.
var meetings = 50
var summary = try Simulator(seed: seed, meetings: meetings).write { _ in }
var checksum: UInt64 = 0
var seconds = 0.0
repeat {
    let perMeeting = max(1.0, Double(summary.qualityReports) / Double(max(1, summary.meetings)))
    meetings = max(meetings + 1, Int((Double(target) / perMeeting * 1.02).rounded(.up)))
    let clock = ContinuousClock()
    let start = clock.now
    summary = try Simulator(seed: seed, meetings: meetings).write { bytes in
        checksum &+= UInt64(bytes.count) &* 31 &+ UInt64(bytes.last ?? 0)
    }
    let elapsed = clock.now - start
    seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
} while summary.qualityReports < target

func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
print("meetings \(summary.meetings), clients \(summary.clients), lines \(summary.lines), quality reports \(summary.qualityReports), bytes \(summary.bytes)")
print("time \(fmt(seconds)) s")
print("reports/s \(fmt(Double(summary.qualityReports) / seconds))")
print("lines/s \(fmt(Double(summary.lines) / seconds))")
print("MB/s \(fmt(Double(summary.bytes) / seconds / 1_000_000))")
