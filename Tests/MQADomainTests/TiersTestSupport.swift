import Foundation
import MQASimulator
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

extension ClientBuilder.Defaults {
    /// What the tier, stall and incident tests were written with: a report
    /// every second, rtt 50, loss 0.5 %, jitter 5, 1500 kbps.
    static let tiers = ClientBuilder.Defaults(rtt: 50, loss: 0.5, jitter: 5, bitrate: 1500, step: 1000)
}

/// A config where each warm report's MOS sets the tier directly: no smoothing,
/// no dwell, no hysteresis, no cold start; only the test's chosen key differs.
func directConfig(_ change: (inout TierConfig) -> Void = { _ in }) -> TierConfig {
    var c = TierConfig()
    c.alphaDown = 1; c.alphaUp = 1; c.downDwell = 1; c.upDwell = 1
    c.hysteresis = 0; c.coldStartMs = 0
    change(&c)
    return c
}


/// A random client log with joins, reports (some cold, some gaps, some null
/// MOS), SDK tiers, disconnects/reconnects, reports outside connections and
/// subscriptions with stalls.
func randomClient(_ uid: String, peers: [String], rng: inout SplitMix64) -> ClientBuilder {
    var b = ClientBuilder(uid, defaults: .tiers)
    var t: Int64 = 1_000_000 + Int64.random(in: 0..<5000, using: &rng)
    if Bool.random(using: &rng) { b.join(t) }  // else the log began late
    for p in peers {
        b.subscribe(t + 100, p, "\(p)-cam")
        b.status(t + 300, p, "\(p)-cam", timedOut: false)
    }
    var connected = true
    var mos = 3.8
    for _ in 0..<Int.random(in: 5..<120, using: &rng) {
        t += Int64.random(in: 0..<3000, using: &rng)
        if Int.random(in: 0..<25, using: &rng) == 0 { t += 12000 }
        switch Int.random(in: 0..<40, using: &rng) {
        case 0 where connected: b.disconnect(t, error: Bool.random(using: &rng) ? "timeout" : nil); connected = false
        case 1: b.reconnect(t); connected = true
        case 2: b.sdkTier(t, ["excellent", "Good", "poor", "bad", "unknown"].randomElement(using: &rng)!)
        case 3 where !peers.isEmpty: b.status(t, peers[0], "\(peers[0])-cam", timedOut: Bool.random(using: &rng))
        default: break
        }
        mos = min(4.6, max(1.0, mos + Double.random(in: -0.6...0.6, using: &rng)))
        let cold = Int.random(in: 0..<10, using: &rng) == 0
        let sdk: Double? = Int.random(in: 0..<15, using: &rng) == 0 ? nil : mos
        b.report(t, mos: sdk, rtt: cold ? 0 : Double.random(in: 20...500, using: &rng),
                 loss: Double.random(in: 0...10, using: &rng), jitter: Double.random(in: 0...50, using: &rng))
    }
    if Bool.random(using: &rng) { b.leave(t + 500) }
    return b
}

/// A scratch store of `count` simulated meetings (every engine), ingested
/// from one log; keep the `Scratch` alive while the store is used.
func simulatedMeetings(seed: UInt64, count: Int) throws -> (Scratch, EventStore) {
    let scratch = Scratch()
    let path = scratch.dir + "/sim.ndjson"
    var bytes: [UInt8] = []
    _ = try Simulator(seed: seed, meetings: count).write { bytes.append(contentsOf: $0) }
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let store = try EventStore(path: scratch.db)
    _ = try Ingester(store: store).ingest(paths: [path])
    return (scratch, store)
}

/// `columns` cut at random places into blocks of 1 to 40 reports (some
/// empty blocks too).
func randomBlocks(_ columns: ReportColumns, rng: inout SplitMix64) -> ReportBlocks {
    var cuts: [Range<Int>] = []
    var i = 0
    while i < columns.count {
        let n = Int.random(in: 0...40, using: &rng)
        cuts.append(i..<min(columns.count, i + n))
        i += n
    }
    return ReportBlocks { body in
        for r in cuts {
            var block = ReportColumns()
            for k in r { block.append(ts: columns.ts[k], columns.report(at: k)) }
            try body(block)
        }
    }
}
