import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQATestSupport
import MQAStore
@testable import MQAAnalysis

@Suite struct TrackAndFleetTests {
    let sfu = MeetingReport(log: Fixtures.sfu, config: TierConfig())

    @Test func alignedStallsAreSenderSide() throws {
        let r = try TrackReport(meeting: sfu, track: "carol-cam")
        #expect(r.publishers == ["carol"])
        #expect(r.rows.map(\.subscription.subscriber) == ["alice", "bob", "bob"])
        #expect(r.stallCount == 2 && r.sharedStallCount == 2)
        #expect(r.verdict == .senderSide)
        #expect(r.rows[0].sharedWith == [["bob"]])
    }

    @Test func ownStallIsSubscriberSide() throws {
        let r = try TrackReport(meeting: sfu, track: "bob-cam")
        #expect(r.verdict == .subscriberSide)
        #expect(r.rows.first { $0.subscription.subscriber == "carol" }?.attribution == "own network")
    }

    @Test func oneSubscriberIsUndeterminedAndNoStallsSaysSo() throws {
        #expect(try TrackReport(meeting: sfu, track: "carol-screen").verdict == .noStalls)
        let cdn = MeetingReport(log: Fixtures.cdn, config: TierConfig())
        let alone = try TrackReport(meeting: cdn, track: "erin-cam")
        #expect(alone.verdict == .undetermined)
        // One viewer: nothing to compare with, so no side is named (it
        // said "own network" under a verdict of "undetermined").
        let stalled = alone.rows.filter { !$0.subscription.stalls.isEmpty }
        #expect(!stalled.isEmpty && stalled.allSatisfy { $0.attribution == "no other viewer" }, "\(stalled.map(\.attribution))")
        #expect(alone.markdown.contains("— (no other viewer)") && !alone.markdown.contains("— (own)"))
    }

    @Test func unknownTrackThrows() {
        #expect(throws: ReportError.noTrack(track: "nope", meeting: "m-42")) { try TrackReport(meeting: sfu, track: "nope") }
    }

    @Test func fleetRanksWorstFirstByTheDocumentedScore() {
        let cdn = MeetingReport(log: Fixtures.cdn, config: TierConfig())
        let a = FleetEntry(sfu), b = FleetEntry(cdn)
        // sfu: stalls 2.5 + 2.2 + 1.0 s; bob's poor/bad warm time; one abnormal disconnect.
        #expect(a.stalledMs == 5700)
        #expect(a.abnormalDisconnects == 1)
        #expect(a.score == 5.7 + Double(a.lowTierMs!) / 1000 + 30)
        #expect(b.score == 4)  // 4 s stall, no quality data, "meeting_ended" has no error
        #expect(b.lowTierMs == nil)
        let fleet = FleetReport(entries: [b, a])
        #expect(fleet.ranked.map(\.header.meeting) == ["m-42", "m-cdn"])
        #expect(FleetReport(entries: [b, a], top: 1).ranked.map(\.header.meeting) == ["m-42"])
        #expect(fleet.issueTotals[.noQualityData]?.meetings == 1)
        #expect(fleet.markdown.contains("30 s per disconnect with an error"))
    }

    /// A participant's impact line: on a CDN meeting poor/bad is "no data",
    /// never left out as if it were 0 (Docs/incidents.md, "Who suffered most").
    @Test func aCDNImpactSaysPoorBadHasNoData() {
        var p = ParticipantImpact(uid: "dave", stalledMs: 4000, watchedMs: 60_000, subscriptions: 1, tiles: 1, lowTierMs: nil,
                                  disconnects: 0, abnormalDisconnects: 0)
        #expect(IncidentText.impact(p) == "stalled 4 s (6.7% of 1 m 00 s of video watched over 1 tile), poor/bad no data", "\(IncidentText.impact(p))")
        p.lowTierMs = 0
        #expect(!IncidentText.impact(p).contains("poor/bad"))
        p.stalledMs = 0
        p.lowTierMs = nil
        #expect(IncidentText.impact(p) == "no stalls, no abnormal disconnect (no quality data)")
    }

    @Test("a CDN meeting's poor/bad time is null, 'no quality data', never a perfect 0")
    func cdnHasNoLowTierFigure() {
        let cdn = FleetEntry(MeetingReport(log: Fixtures.cdn, config: TierConfig()))
        let fleet = FleetReport(entries: [cdn, FleetEntry(sfu)])
        let json = fleet.json.rendered()
        #expect(json.contains(#""meeting":"m-cdn""#))
        #expect(json.contains(#""lowTierMs":null,"qualityData":false"#))
        #expect(!json.contains(#""lowTierMs":0"#))
        #expect(fleet.csv.split(separator: "\n").first { $0.contains("m-cdn") }!.contains(",4000,,0,"))
        for page in [fleet.markdown, fleet.html] {
            #expect(page.contains("no quality data"))
            #expect(!page.contains("0 ms"))
        }
        // The stored-summary form (`mqa meetings`) says the same whatever the summary holds.
        let stored = FleetEntry(header: MeetingHeader(meeting: "m", title: nil, engine: "cdn", start: nil, end: nil, participants: 1),
                                stalledMs: 0, lowTierMs: 0, abnormalDisconnects: 0)
        #expect(stored.lowTierMs == nil)
    }

    @Test func tiesRankByMeetingId() {
        var x = FleetEntry(sfu), y = FleetEntry(sfu)
        x.header.meeting = "b"; y.header.meeting = "a"
        #expect(FleetReport(entries: [x, y]).ranked.map(\.header.meeting) == ["a", "b"])
    }
}

/// A meeting where nobody had trouble says so once, not with a ranking of
/// zeros under "Who suffered most".
@Suite struct NobodySufferedTests {
    @Test func aCleanMeetingRanksNobody() {
        var a = ClientBuilder("alice"), b = ClientBuilder("bob")
        a.join(Fixtures.t0)
        b.join(Fixtures.t0 + 100)
        a.reports(from: Fixtures.t0 + 1000, to: Fixtures.t0 + 60_000, mos: 4.4)
        b.reports(from: Fixtures.t0 + 1000, to: Fixtures.t0 + 60_000, mos: 4.4)
        a.leave(Fixtures.t0 + 61_000)
        b.leave(Fixtures.t0 + 61_000)
        let r = MeetingReport(log: meeting([a, b], id: "m-clean"), config: TierConfig())
        let md = r.markdown
        #expect(md.contains("Nobody suffered") && md.contains("Nobody: every participant's impact is 0."), "\(md)")
        #expect(!md.contains("1. alice: impact 0 ms"), "\(md)")
        #expect(r.html.contains("Nobody: every participant") && !r.html.contains("abn. disc."))
    }
}

/// A browser dump holds one person: a stall of a track whose sender is in
/// no log cannot be cleared on that side ("either side" claimed it was).
@Suite struct UnseenSenderTests {
    @Test func anUnknownCauseSaysTheSendersSideIsNotInTheLogs() {
        let t = Fixtures.t0
        var a = ClientBuilder("alice")
        a.join(t)
        a.reports(from: t + 1000, to: t + 60_000, mos: 4.4)
        a.subscribe(t + 1000, "zed", "zed-cam")
        a.status(t + 1500, "zed", "zed-cam", timedOut: false)
        a.stall("zed", "zed-cam", from: t + 20_000, to: t + 26_000)
        a.leave(t + 61_000)
        let md = MeetingReport(log: meeting([a], id: "m-alone"), config: TierConfig()).markdown
        #expect(md.contains("**unknown**") && md.contains("no loss, RTT or tier trouble on this side; the sender's side is not in these logs"), "\(md)")
        #expect(!md.contains("on either side"))
    }
}

/// The context of a dump's connection says which way it goes: what held
/// back is the video this participant sent, what was concealed the audio
/// it received (a Teams dump's "video limited by bandwidth" read as the
/// video watched).
@Suite struct ConnectionContextWordingTests {
    @Test func limitsAreSentAndConcealmentReceived() {
        var r = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        var c = ConnectionContext(file: "/d/alice.log", connection: "PC_0")
        c.limitedMs = ["bandwidth": 268_000]
        c.concealment = 0.004
        r.connections["alice"] = [c]
        let md = r.markdown
        #expect(md.contains("sent video limited by") && md.contains("received audio concealed"), "\(md)")
    }
}
