import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// `spec/tiers.md`, "Cold start": a report is cold when
/// `ts < connectionStart + coldStartMs`, or `rtt == 0`; cold reports never
/// drive the tier and count in no statistic.
@Suite("Spec: cold start")
struct SpecColdStartTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        /// (ts, mos, rtt)
        var reports: [(Int64, Double, Double)]
        var changes: [TierChange]
        var warm: Int
        var cold: Int
        var testDescription: String { label }
    }

    @Test("cold start: ts < connectionStart + coldStartMs is cold, ts at the edge is warm", arguments: [
        Row(label: "3999 cold, 4000 warm", reports: [(3999, 2.0, 50), (4000, 4.3, 50)],
            changes: [ch(4000, .unknown, .excellent)], warm: 1, cold: 1),
        Row(label: "all inside the cold start", reports: [(0, 2.0, 50), (3999, 2.0, 50)], changes: [], warm: 0, cold: 2),
    ])
    func coldWindow(_ r: Row) {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        for (t, m, rtt) in r.reports { b.report(t, mos: m, rtt: rtt) }
        b.leave(10000)
        let a = MeetingAnalysis.analyze(meeting([b]), config: directConfig { $0.coldStartMs = 4000 })
        #expect(a.connections[0].changes == r.changes)
        #expect(a.connections[0].warmReports == r.warm)
        #expect(a.connections[0].coldReports == r.cold)
    }

    @Test("cold start: a report with rtt == 0 is cold even past the cold start", arguments: [
        Row(label: "rtt 0 at 5000 is cold", reports: [(5000, 2.0, 0), (6000, 4.3, 50)],
            changes: [ch(6000, .unknown, .excellent)], warm: 1, cold: 1),
        Row(label: "rtt 0.001 is measured", reports: [(5000, 2.0, 0.001)], changes: [ch(5000, .unknown, .bad)], warm: 1, cold: 0),
    ])
    func rttZero(_ r: Row) {
        coldWindow(r)
    }

    @Test("cold start: counts from each connection's start, a reconnect restarts it")
    func perConnection() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(5000, mos: 4.3)
        b.disconnect(6000)
        b.reconnect(10000)
        b.report(12000, mos: 2.0)  // cold: 12000 < 10000 + 4000
        b.report(14000, mos: 2.0)  // warm
        b.leave(15000)
        let a = MeetingAnalysis.analyze(meeting([b]), config: directConfig { $0.coldStartMs = 4000 })
        #expect(a.connections.map(\.changes) == [[ch(5000, .unknown, .excellent)], [ch(14000, .unknown, .bad)]])
        #expect(a.connections.map(\.coldReports) == [0, 1])
    }

    @Test("cold start: cold reports (the default coldStartMs is 4000) count in no MOS/loss/RTT statistic, only as cold")
    func statistics() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 1.0, rtt: 900, loss: 50)  // cold: inside the cold start
        b.report(3999, mos: 1.5, rtt: 700, loss: 30)  // cold: the default coldStartMs is 4000
        b.report(5000, mos: 4.5, rtt: 0, loss: 40)    // cold: RTT not measured
        b.report(6000, mos: 4.0, rtt: 80, loss: 1)
        b.leave(7000)
        let p = MeetingAnalysis.analyze(meeting([b]), config: TierConfig()).participants[0]
        #expect(p.warmReports == 1 && p.coldReports == 3)
        #expect(p.mos?.mean == 4.0)
        #expect(p.rttMs?.p95 == 80)
        #expect(p.lossPct?.p95 == 1)
    }
}
