import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
import MQATestSupport

/// A rise is measured against the participant's own baseline, the lower
/// quartile of their warm reports (Docs/incidents.md): not the median, not
/// the smallest value.
@Suite struct IncidentBaselineTests {
    typealias T = IncidentTests

    @Test func theBaselineIsTheLowerQuartileOfTheWarmReports() {
        // 10 % of the reports at 20 ms (the smallest), 30 % at 40 ms (the
        // lower quartile), the rest at 100 ms (the median), and a rise to
        // 335 ms around a stall.
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for (i, t) in stride(from: Int64(1000), to: 120_000, by: 1000).enumerated() {
            let rtt: Double = (38_000..<44_000).contains(t) ? 335 : (i % 10 == 0 ? 20 : i % 10 < 4 ? 40 : 100)
            alice.report(t, mos: 4.3, rtt: rtt)
        }
        alice.leave(120_000)
        T.watch(&alice, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 42_000, 45_000)
        let incidents = T.find([alice, T.calm("bob")])
        #expect(incidents.count == 1)
        #expect(incidents.first?.cause == .ownNetwork)
        #expect(incidents.first?.evidence.baselineRttMs == 40)
        #expect(incidents.first?.evidence.maxRttMs == 335)
    }

    /// Jitter 0 is no measurement (a dump's interval without audio): half
    /// the call at 0 must not make the baseline 0, so that 21 ms against a
    /// usual 11 ms reads as no rise (a real Teams dump's stall was blamed on
    /// "jitter up to 21 ms (own baseline 0 ms)").
    @Test func jitterZeroIsNoMeasurementForTheBaseline() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for (i, t) in stride(from: Int64(1000), to: 120_000, by: 1000).enumerated() {
            let jitter: Double = (38_000..<44_000).contains(t) ? 21 : i % 2 == 0 ? 0 : 11
            alice.report(t, mos: 4.3, rtt: 40, jitter: jitter)
        }
        alice.leave(120_000)
        T.watch(&alice, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 42_000, 45_000)
        let incidents = T.find([alice, T.calm("bob")])
        #expect(incidents.count == 1)
        #expect(incidents.first?.cause != .ownNetwork && incidents.first?.evidence.maxJitterMs == nil, "\(incidents)")
    }

    /// An SDK log whose jitter is 0 but for a spike around the stall: 0 is
    /// its baseline (nearly every report measured it), and the spike is a
    /// rise, as before.
    @Test func jitterZeroIsTheBaselineWhereNearlyAllReportsSayIt() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) {
            alice.report(t, mos: 4.3, rtt: 40, jitter: (38_000..<44_000).contains(t) ? 30 : 0)
        }
        alice.leave(120_000)
        T.watch(&alice, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 42_000, 45_000)
        let incidents = T.find([alice, T.calm("bob")])
        #expect(incidents.first?.cause == .ownNetwork && incidents.first?.evidence.baselineJitterMs == 0, "\(incidents)")
    }
}
