import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// `spec/tiers.md`, "Tuning: scoring one config against the stalls", on
/// hand-made logs scored with `directConfig()` (each warm MOS sets the tier).
@Suite("Spec: tuning scores")
struct SpecTuningTests {
    /// Alice, excellent from 1000 to 40000 except bad over [10000, 11000)
    /// (one alarm, at 10000), watching bob-cam and carol-cam; `stalls` are
    /// (track, start), each 500 ms long.
    func corpus(stalls: [(String, Int64)]) -> TuningCorpus {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for track in ["bob-cam", "carol-cam"] {
            alice.subscribe(100, String(track.prefix { $0 != "-" }), track)
            alice.status(200, String(track.prefix { $0 != "-" }), track, timedOut: false)
        }
        for t in stride(from: Int64(1000), to: 40000, by: 1000) { alice.report(t, mos: t == 10000 ? 2.0 : 4.3) }
        for (track, start) in stalls {
            let publisher = String(track.prefix { $0 != "-" })
            alice.status(start, publisher, track, timedOut: true)
            alice.status(start + 500, publisher, track, timedOut: false)
        }
        alice.leave(40000)
        return TuningCorpus([meeting([alice])])
    }

    @Test("tuning: a stall is covered when the tier was target or worse at any instant of [t1 - leadMs, t1]", arguments: [
        (Int64(10000), 1), // the drop's own instant
        (20999, 1),        // t1 - leadMs = 10999 lies in [10000, 11000)
        (21000, 0),        // t1 - leadMs = 11000: the bad hold has ended
        (9999, 0),         // before the drop
    ])
    func covered(start: Int64, covered: Int) {
        let s = Tuning.score(corpus(stalls: [("bob-cam", start)]), config: directConfig(),
                             options: TuningOptions(target: .poor, leadMs: 10000))
        #expect(s.stalls == 1)
        #expect(s.covered == covered)
    }

    @Test("tuning: lead time = t1 - the latest alarm at or before t1, for covered stalls; median is the ⌈n/2⌉-th smallest", arguments: [
        ([10000], 0),   // an alarm at t1 itself: lead 0
        ([20999], 10999),
        ([10000, 20999], 0),                // leads 0 and 10999: the 1st smallest
        ([21000], nil),                     // not covered: no lead time
    ] as [([Int64], Int64?)])
    func leadTime(starts: [Int64], median: Int64?) {
        let s = Tuning.score(corpus(stalls: starts.map { ("bob-cam", $0) }), config: directConfig(),
                             options: TuningOptions(target: .poor, leadMs: 10000))
        #expect(s.medianLeadMs == median)
    }

    @Test("tuning: an alarm at ta is useful when a stall starts in [ta, ta + leadMs]", arguments: [
        (Int64(10000), 1), (20000, 1), (20001, 0), (9999, 0),
    ])
    func useful(start: Int64, useful: Int) {
        let s = Tuning.score(corpus(stalls: [("bob-cam", start)]), config: directConfig(),
                             options: TuningOptions(target: .poor, leadMs: 10000))
        #expect(s.alarms == 1)
        #expect(s.useful == useful)
    }

    @Test("tuning: recall = covered / stalls, precision = useful / alarms, F1 = 2pr / (p + r), per hour of warm time")
    func ratios() {
        // Stalls at 10000 (covered, useful), 20999 (covered), 30000 (neither).
        let s = Tuning.score(corpus(stalls: [("bob-cam", 10000), ("carol-cam", 20999), ("bob-cam", 30000)]),
                             config: directConfig(), options: TuningOptions(target: .poor, leadMs: 10000))
        #expect(s.alarms == 1 && s.stalls == 3 && s.covered == 2 && s.useful == 1)
        #expect(s.precision == 1.0)
        #expect(s.recall == 2.0 / 3.0)
        #expect(s.f1 == 2 * 1.0 * (2.0 / 3.0) / (1.0 + 2.0 / 3.0))
        #expect(s.warmMs == 39000)
        #expect(s.alarmsPerHour == 1 / (39000.0 / 3_600_000))
        #expect(s.flaps == 2)
        #expect(s.flapsPerHour == 2 / (39000.0 / 3_600_000))
    }

    @Test("tuning: an alarm is a change from above target to target or worse; changes from unknown are not alarms; flaps join known tiers")
    func alarms() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for (t, m) in [(Int64(1000), 4.3), (2000, 3.3), (3000, 2.8), (4000, 2.0), (5000, 4.3), (6000, 2.0), (20000, 2.0)] {
            alice.report(t, mos: m)
        }
        alice.leave(21000)
        // exc→fair (no), fair→poor (alarm), poor→bad (no: already at target), bad→exc,
        // exc→bad (alarm), the gap's bad→unknown and unknown→bad (no, no flap).
        let s = Tuning.score(TuningCorpus([meeting([alice])]), config: directConfig(), options: TuningOptions(target: .poor))
        #expect(s.alarms == 2)
        #expect(s.flaps == 5)
        #expect(s.warmMs == 5000 + 10000 + 1000)
    }

    @Test("tuning: F1 is 0 when precision and recall are both 0; no alarms, stalls or warm time give zeros")
    func zeros() {
        let s = TuningScore(alarms: 0, stalls: 0, covered: 0, useful: 0, flaps: 0, warmMs: 0, leads: [])
        #expect(s.precision == 0 && s.recall == 0 && s.f1 == 0)
        #expect(s.alarmsPerHour == 0 && s.flapsPerHour == 0)
        #expect(s.medianLeadMs == nil)
        let none = TuningScore(alarms: 2, stalls: 3, covered: 0, useful: 0, flaps: 0, warmMs: 1000, leads: [])
        #expect(none.f1 == 0)
    }

    @Test("percentiles: nearest rank, the ⌈q·n⌉-th smallest", arguments: [
        ([4000, 1000, 3000, 2000], 2000),
        ([5, 1, 3], 3),
        ([7], 7),
        ([2, 2, 9], 2),
    ] as [([Int64], Int64?)])
    func nearestRank(leads: [Int64], median: Int64?) {
        #expect(TuningCounts(leadTimes: leads).medianLeadMs == median)
        #expect(NearestRank.value(leads.sorted(), percent: 50) == median)
    }
}
