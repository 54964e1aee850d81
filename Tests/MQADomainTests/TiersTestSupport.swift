@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Builds one client's log in the order its lines would be written.
struct ClientBuilder {
    var uid: String
    var events: [TimedEvent] = []
    var reports: [(ts: Int64, report: QualityReport)] = []

    init(_ uid: String) { self.uid = uid }

    mutating func event(_ ts: Int64, _ payload: EventPayload) { events.append(TimedEvent(ts: ts, payload: payload)) }
    mutating func join(_ ts: Int64, engine: String = "sfu") { event(ts, .meetingJoin(engine: engine, title: nil)) }
    mutating func leave(_ ts: Int64) { event(ts, .meetingLeave) }
    mutating func disconnect(_ ts: Int64, error: String? = nil) { event(ts, .disconnect(reason: "network", error: error)) }
    mutating func reconnect(_ ts: Int64) { event(ts, .reconnect) }
    mutating func sdkTier(_ ts: Int64, _ tier: String) { event(ts, .connectionQualityChange(tier: tier)) }
    mutating func subscribe(_ ts: Int64, _ publisher: String, _ track: String, kind: String = "camera") {
        event(ts, .streamSubscribe(publisher: publisher, track: track, kind: kind))
    }
    mutating func status(_ ts: Int64, _ publisher: String, _ track: String, timedOut: Bool) {
        event(ts, .receiveStreamStatus(publisher: publisher, track: track, timedOut: timedOut))
    }
    mutating func report(_ ts: Int64, mos: Double?, rtt: Double = 50, loss: Double = 0.5,
                         jitter: Double = 5, bitrate: Double = 1500) {
        reports.append((ts, QualityReport(loss: loss, rtt: rtt, jitter: jitter, bitrate: bitrate, mos: mos)))
    }
    /// Reports every `step` ms over `[from, to)` with one MOS.
    mutating func reports(from: Int64, to: Int64, step: Int64 = 1000, mos: Double) {
        var t = from
        while t < to { report(t, mos: mos); t += step }
    }

    /// Sorted by ts, stably (equal ts keep the order written), as the store does.
    func build() -> ClientLog {
        var columns = ReportColumns()
        for r in reports.enumerated().sorted(by: { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }) {
            columns.append(ts: r.element.ts, r.element.report)
        }
        let sortedEvents = events.enumerated()
            .sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
        return ClientLog(uid: uid, events: sortedEvents, reports: columns)
    }
}

func meeting(_ clients: [ClientBuilder], id: String = "m-1") -> MeetingLog {
    MeetingLog(meeting: id, clients: clients.map { $0.build() }.sorted { $0.uid < $1.uid })
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
    var b = ClientBuilder(uid)
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
