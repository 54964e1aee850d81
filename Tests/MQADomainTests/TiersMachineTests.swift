import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

@Suite("Tier state machine")
struct TiersMachineTests {
    func changes(_ b: ClientBuilder, _ config: TierConfig) -> [TierChange] {
        MeetingAnalysis.analyze(meeting([b]), config: config).connections.flatMap(\.changes)
    }

    @Test("a drop needs downDwell consecutive worse reports")
    func dropWithDownDwell2() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.3)
        b.report(2000, mos: 3.0)
        b.report(3000, mos: 3.0)
        b.leave(4000)
        #expect(changes(b, directConfig { $0.downDwell = 2 }) == [
            TierChange(ts: 1000, from: .unknown, to: .excellent),
            TierChange(ts: 3000, from: .excellent, to: .poor),
        ])
        #expect(changes(b, directConfig { $0.downDwell = 1 }) == [
            TierChange(ts: 1000, from: .unknown, to: .excellent),
            TierChange(ts: 2000, from: .excellent, to: .poor),
        ])
    }

    @Test("a single better report between worse ones resets the down count")
    func dropDwellResets() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.3)
        b.report(2000, mos: 3.0)
        b.report(3000, mos: 4.3)
        b.report(4000, mos: 3.0)
        b.leave(5000)
        #expect(changes(b, directConfig { $0.downDwell = 2 }).count == 1)
    }

    @Test("a rise inside the hysteresis band is blocked")
    func riseBlockedByHysteresis() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 3.5)   // fair
        b.report(2000, mos: 3.65)  // good, but 3.65 - 0.1 is still fair: blocked
        b.report(3000, mos: 3.75)  // 3.75 - 0.1 = 3.65: good
        b.leave(4000)
        #expect(changes(b, directConfig { $0.hysteresis = 0.1 }) == [
            TierChange(ts: 1000, from: .unknown, to: .fair),
            TierChange(ts: 3000, from: .fair, to: .good),
        ])
    }

    @Test("smoothing follows s = a·m + (1 − a)·s with the asymmetric alphas")
    func smoothing() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.3)
        b.report(2000, mos: 3.0)  // s = 0.8·3.0 + 0.2·4.3 = 3.26: fair
        b.report(3000, mos: 4.5)  // s = 0.4·4.5 + 0.6·3.26 = 3.756: good; minus 0.1 = 3.656: good
        b.report(4000, mos: 4.5)  // second rise report with upDwell 2
        b.leave(5000)
        var c = TierConfig()
        c.coldStartMs = 0
        // After 3000 s = 3.756, after 4000 s = 0.4·4.5 + 0.6·3.756 = 4.0536: excellent,
        // and 4.0536 - 0.1 = 3.9536 → good; up counts 1 at 3000 (good > fair), 2 at 4000.
        #expect(changes(b, c) == [
            TierChange(ts: 1000, from: .unknown, to: .excellent),
            TierChange(ts: 2000, from: .excellent, to: .fair),
            TierChange(ts: 4000, from: .fair, to: .good),
        ])
    }

    @Test("a reporting gap resets to unknown at lastTs + gapMs")
    func gapReset() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.3)
        b.report(2000, mos: 4.3)
        b.report(15000, mos: 3.0)
        b.leave(20000)
        let a = MeetingAnalysis.analyze(meeting([b]), config: directConfig())
        let conn = a.connections[0]
        #expect(conn.changes == [
            TierChange(ts: 1000, from: .unknown, to: .excellent),
            TierChange(ts: 12000, from: .excellent, to: .unknown),
            TierChange(ts: 15000, from: .unknown, to: .poor),
        ])
        #expect(conn.flaps == 0)
        #expect(conn.tierMs[.excellent] == 11000)
        #expect(conn.tierMs[.poor] == 5000)
        #expect(conn.tierMs[.unknown] == 4000)
        #expect(conn.tierMs.total == 20000)
        // A gap of exactly gapMs is not a gap.
        var exact = ClientBuilder("a", defaults: .tiers)
        exact.join(0)
        exact.report(1000, mos: 4.3)
        exact.report(11000, mos: 4.3)
        exact.leave(12000)
        #expect(changes(exact, directConfig()).count == 1)
    }

    @Test("cold-start placeholders (4.5, RTT 0) never drive the tier")
    func coldPlaceholderIgnored() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.5, rtt: 0)  // cold: placeholder
        b.report(2000, mos: 4.5, rtt: 50) // cold: inside coldStartMs
        b.report(4000, mos: 2.0, rtt: 80) // warm
        b.report(5000, mos: 4.5, rtt: 0)  // cold: RTT not measured
        b.leave(6000)
        let a = MeetingAnalysis.analyze(meeting([b]), config: TierConfig())
        #expect(a.connections[0].changes == [TierChange(ts: 4000, from: .unknown, to: .bad)])
        #expect(a.participants[0].warmReports == 1)
        #expect(a.participants[0].coldReports == 3)
        #expect(a.participants[0].mos?.mean == 2.0)
        #expect(a.participants[0].rttMs?.p95 == 80)
    }

    @Test("a reconnect starts a new connection with its own cold start")
    func reconnectRestartsColdStart() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(5000, mos: 4.3)
        b.disconnect(6000, error: "timeout")
        b.report(7000, mos: 1.5)   // between connections: counts nowhere
        b.reconnect(8000)
        b.report(9000, mos: 2.0)   // cold: 9000 < 8000 + 4000
        b.report(12000, mos: 2.0)  // warm, first of the new connection
        b.leave(13000)
        let a = MeetingAnalysis.analyze(meeting([b]), config: TierConfig())
        #expect(a.connections.map { [$0.start, $0.end] } == [[0, 6000], [8000, 13000]])
        #expect(a.connections[0].changes == [TierChange(ts: 5000, from: .unknown, to: .excellent)])
        #expect(a.connections[1].changes == [TierChange(ts: 12000, from: .unknown, to: .bad)])
        #expect(a.participants[0].warmReports == 2)
        #expect(a.participants[0].coldReports == 1)
        #expect(a.participants[0].connections == 2)
        #expect(Set(a.issues.map(\.code)) == [.reconnects, .abnormalDisconnect, .lowMOS])
    }

    @Test("with no smoothing, dwell or hysteresis each warm report's tier is tierOf(mos)")
    func identityProperty() {
        var rng = SplitMix64(seed: 7)
        let config = directConfig()
        let params = TierParams(config)
        let edges = config.thresholds
        for _ in 0..<50 {
            var b = ClientBuilder("a", defaults: .tiers)
            b.join(0)
            var mos: [Double] = []
            for i in 0..<200 {
                // Mix exact edges in: `>=` must hold at the edge itself.
                let m = Int.random(in: 0..<5, using: &rng) == 0
                    ? edges.randomElement(using: &rng)! : Double.random(in: 1...5, using: &rng)
                mos.append(m)
                b.report(Int64(1000 * (i + 1)), mos: m)
            }
            b.leave(Int64(1000 * 201))
            let conn = MeetingAnalysis.analyze(meeting([b]), config: config).connections[0]
            // Holds of one tier that touch are merged: look the tier up at
            // each report's instant instead of counting holds.
            let timeline = TierTimeline(holds: conn.holds)
            let tiers = (0..<200).map { timeline.tier(at: Int64(1000 * ($0 + 1))) }
            #expect(tiers == mos.map { params.tierOf($0) })
            #expect(zip(conn.holds, conn.holds.dropFirst()).allSatisfy { $0.tier != $1.tier || $0.to != $1.from })
        }
    }

    @Test("at equal ts a report goes to the connection a reconnect opens, or the one a disconnect closes")
    func equalTimestampOrdering() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(6000, mos: 4.3)
        b.disconnect(6000)
        b.reconnect(9000)
        b.report(9000, mos: 4.3)
        b.leave(10000)
        let spans = b.build().connectionSpans()
        #expect(spans.map(\.reports) == [0..<1, 1..<2])
        #expect(spans.map(\.start) == [0, 9000])
    }

    @Test("a log that begins late starts its first connection at its first event")
    func lateStart() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.report(500, mos: 4.3)
        b.sdkTier(700, "good")
        b.disconnect(900)
        b.report(950, mos: 4.0)  // after the disconnect: no connection
        b.join(2000)
        b.report(2500, mos: 4.0)
        let spans = b.build().connectionSpans()
        #expect(spans.map { [$0.start, $0.end] } == [[500, 900], [2000, 2500]])
        #expect(spans.map(\.reports) == [0..<1, 2..<3])
        #expect(spans.map(\.events) == [0..<2, 2..<3])
    }

    @Test("a join while connected ends the open connection there")
    func joinWhileOpen() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(100, mos: 4)
        b.join(1000)
        b.report(1500, mos: 4)
        let spans = b.build().connectionSpans()
        #expect(spans.map { [$0.start, $0.end] } == [[0, 1000], [1000, 1500]])
    }
}
