import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

@Suite("Meeting report parts")
struct TiersReportTests {
    @Test("nearest-rank percentiles", arguments: [
        (5, 10, 1), (50, 10, 5), (95, 10, 10), (95, 20, 19), (50, 3, 2), (5, 1, 1), (95, 100, 95), (5, 21, 2),
    ])
    func nearestRank(percent: Int, n: Int, rank: Int) {
        #expect(NearestRank.rank(percent: percent, count: n) == rank)
    }

    @Test func distribution() {
        let d = Distribution((1...20).map(Double.init).reversed())!
        #expect(d.mean == 10.5 && d.p5 == 1 && d.p50 == 10 && d.p95 == 19)
        #expect(Distribution([]) == nil)
    }

    /// cli.md v3: "numbers rounded to their meaning". A logged MOS is
    /// kept as it is; a MOS percentile the E-model derived is not a
    /// 17-digit double.
    @Test func mosPercentilesAreRounded() {
        let d = Distribution([4.2539507025532455, 4.3, 3.1234567])!
        #expect(d.json(["p5", "p50", "p95"], places: 2, valuePlaces: JSON.Places.mosValue).rendered()
            == #"{"mean":3.89,"p5":3.1235,"p50":4.254,"p95":4.3}"#)
        #expect(d.json(["p5"], places: 2).rendered() == #"{"mean":3.89,"p5":3.1234567}"#)
    }

    @Test("a CDN meeting has null quality stats and a no_quality_data issue, never perfect scores")
    func cdnMeeting() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0, engine: "cdn")
        alice.report(5000, mos: 4.4)  // should not exist on CDN; must still not show
        alice.leave(9000)
        let a = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig())
        let p = a.participants[0]
        #expect(a.isCDN)
        #expect(p.mos == nil && p.lossPct == nil && p.rttMs == nil && p.jitterMs == nil && p.bitrateKbps == nil)
        #expect(p.sdkTierAgreement == nil)
        #expect(a.issues.map(\.code) == [.noQualityData])
        let json = a.participantsJSON.rendered()
        #expect(json.contains("\"mos\":null") && json.contains("\"lossPct\":null") && json.contains("\"bitrateKbps\":null"))
        #expect(a.issuesJSON.rendered() == #"[{"code":"no_quality_data","uid":null,"ts":0,"count":1,"detail":"no quality data (CDN engine)"}]"#)
    }

    /// Docs/tiers.md choice 5: in a CDN meeting `tierMs` is all `unknown`,
    /// even where a client logs quality reports anyway; a stall there is
    /// under no tier, and tuning gets no alarm from such reports.
    @Test func cdnReportsDriveNoTier() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0, engine: "cdn")
        alice.subscribe(0, "bob", "cam")
        alice.status(1000, "bob", "cam", timedOut: false)
        for t in stride(from: Int64(5000), to: 9000, by: 1000) { alice.report(t, mos: 4.4) }
        for t in stride(from: Int64(9000), to: 20000, by: 1000) { alice.report(t, mos: 1.5) }
        alice.stall("bob", "cam", from: 8000, to: 9000)
        alice.stall("bob", "cam", from: 15000, to: 16000)
        alice.leave(20000)
        let log = meeting([alice])
        let a = MeetingAnalysis.analyze(log, config: TierConfig())
        #expect(a.participants[0].tierMs[.unknown] == 20000 && a.participants[0].tierChanges == 0)
        #expect(a.connections.allSatisfy { $0.changes.isEmpty && $0.warmReports == 0 })
        #expect(a.subscriptions[0].stalls.map(\.tier) == [.unknown, .unknown])
        #expect(!a.issues.contains { $0.code == .stallsUnderGoodTier })
        let corpus = TuningCorpus([log])
        #expect(corpus.reportCount == 0 && corpus.stallCount == 2)
    }

    @Test("quality issues fire strictly beyond their thresholds")
    func qualityIssues() {
        var bad = ClientBuilder("bad", defaults: .tiers)
        bad.join(0)
        for t in stride(from: Int64(5000), to: 25000, by: 1000) {
            bad.report(t, mos: 3.0, rtt: 450, loss: 7.5, jitter: 38)
        }
        bad.leave(25000)
        var fine = ClientBuilder("fine", defaults: .tiers)
        fine.join(0)
        for t in stride(from: Int64(5000), to: 25000, by: 1000) {
            fine.report(t, mos: 3.5, rtt: 400, loss: 5, jitter: 30)  // exactly at the thresholds
        }
        fine.leave(25000)
        let a = MeetingAnalysis.analyze(meeting([bad, fine]), config: TierConfig())
        #expect(a.issues.map(\.code) == [.lowMOS, .highPacketLoss, .highLatency, .highJitter])
        #expect(a.issues.allSatisfy { $0.uid == "bad" })
        #expect(a.issues[1].detail == "p95 loss 7.5% (> 5%)")
    }

    @Test("participant and tiers JSON carry the spec's keys")
    func jsonShapes() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(1_795_946_400_000)
        alice.report(1_795_946_402_000, mos: 0, rtt: 0)
        alice.report(1_795_946_404_000, mos: 4.31, rtt: 48, loss: 0.4, jitter: 6, bitrate: 1850)
        alice.report(1_795_946_406_000, mos: 3.02, rtt: 210, loss: 7.5, jitter: 38, bitrate: 640)
        alice.sdkTier(1_795_946_406_500, "poor")
        alice.disconnect(1_795_946_420_000, error: "timeout")
        let a = MeetingAnalysis.analyze(meeting([alice], id: "m-42"), config: TierConfig())
        let tiers = a.tiersJSON().rendered()
        #expect(tiers.hasPrefix(#"{"meeting":"m-42","engine":"sfu","qualityData":true,"notice":null,"config":{"thresholds":[4,3.6,3.1,2.6]"#))
        #expect(tiers.contains(#""connections":[{"uid":"alice","index":0,"start":1795946400000,"end":1795946420000,"changes":[{"ts":1795946404000,"from":"unknown","to":"excellent"},{"ts":1795946406000,"from":"excellent","to":"fair"}],"tierMs":{"excellent":2000,"good":0,"fair":10000,"poor":0,"bad":0,"unknown":8000},"flaps":1"#))
        #expect(a.tiersJSON(uid: "bob").rendered().hasSuffix(#""connections":[]}"#))
        let p = a.participantsJSON.rendered()
        #expect(p.contains(#""reports":{"warm":2,"cold":1},"mos":{"mean":3.67,"p5":3.02,"p50":3.02,"p95":4.31},"lossPct":{"mean":3.95,"p95":7.5}"#))
        #expect(p.contains(#""bitrateKbps":{"mean":1245,"p5":640}"#))
        #expect(p.contains(#""disconnects":[{"ts":1795946420000,"reason":"network","error":"timeout"}]"#))
        // SDK says poor over [406500, 420000); recomputed is fair then: 0 agreement.
        #expect(p.contains(#""sdkTierAgreement":0"#))
    }
}
