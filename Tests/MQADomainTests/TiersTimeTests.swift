import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

@Suite("Time in tier and SDK agreement")
struct TiersTimeTests {
    @Test("time in tier sums to each connection's length (random logs)")
    func tierTimeSumsToLength() {
        var rng = SplitMix64(seed: 11)
        for round in 0..<40 {
            let uids = ["a", "b", "c"]
            let log = meeting(uids.map { u in randomClient(u, peers: uids.filter { $0 != u }, rng: &rng) },
                              id: "m-\(round)")
            var config = TierConfig()
            config.gapMs = [3000, 10000][round % 2]
            let a = MeetingAnalysis.analyze(log, config: config)
            for c in a.connections {
                #expect(c.tierMs.total == c.end - c.start)
                #expect(c.tierMs.slots.allSatisfy { $0 >= 0 })
                #expect(c.holds.reduce(0) { $0 + $1.to - $1.from } == c.tierMs.known)
            }
            for p in a.participants {
                let own = a.connections.filter { $0.uid == p.uid }
                #expect(p.tierMs.total == own.reduce(0) { $0 + $1.end - $1.start })
            }
        }
    }

    @Test("tier holds until the next warm report, the gap limit, or the connection end")
    func holdIntervals() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.3)
        b.report(3000, mos: 4.3)
        b.report(3000, mos: 2.0)  // same ms: the first hold is [3000, 3000), empty
        b.report(8000, mos: 2.0)
        b.leave(9000)
        let conn = MeetingAnalysis.analyze(meeting([b]), config: directConfig { $0.gapMs = 4000 }).connections[0]
        #expect(conn.holds == [
            TierHold(tier: .excellent, from: 1000, to: 3000),
            TierHold(tier: .bad, from: 3000, to: 7000),
            TierHold(tier: .bad, from: 8000, to: 9000),
        ])
        #expect(conn.tierMs[.unknown] == 1000 + 1000)
    }

    @Test("SDK tier agreement: share of warm time with a known SDK tier that names the same tier")
    func agreement() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.sdkTier(0, "Excellent")
        b.reports(from: 1000, to: 10000, mos: 4.3)   // excellent [1000, 10000)
        b.sdkTier(5000, "good")
        b.reports(from: 10000, to: 20000, mos: 3.0)  // poor [10000, 20000)
        b.sdkTier(12000, "POOR")
        b.leave(20000)
        let p = MeetingAnalysis.analyze(meeting([b]), config: directConfig()).participants[0]
        // match [1000, 5000) + [12000, 20000) = 12000 of 19000 known.
        #expect(p.sdkAgreement == TierAgreement(knownMs: 19000, matchingMs: 12000))
        #expect(p.sdkTierAgreement == 12000.0 / 19000.0)
    }

    @Test("agreement is null without SDK tiers, and an SDK 'unknown' is not a known tier")
    func agreementNull() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.reports(from: 1000, to: 10000, mos: 4.3)
        b.leave(10000)
        #expect(MeetingAnalysis.analyze(meeting([b]), config: directConfig()).participants[0].sdkTierAgreement == nil)
        b.sdkTier(500, "unknown")
        #expect(MeetingAnalysis.analyze(meeting([b]), config: directConfig()).participants[0].sdkTierAgreement == nil)
        b.sdkTier(6000, "excellent")
        #expect(MeetingAnalysis.analyze(meeting([b]), config: directConfig()).participants[0].sdkTierAgreement == 1)
    }
}
