import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// Every report in every format against its golden file.
@Suite struct GoldenTests {
    static let sfu = MeetingReport(log: Fixtures.sfu, config: TierConfig())
    static let cdn = MeetingReport(log: Fixtures.cdn, config: TierConfig())

    @Test(arguments: ReportFormat.allCases)
    func meetingReport(_ format: ReportFormat) {
        GoldenFile.check(GoldenTests.sfu.render(format), "meeting-m-42.\(format.fileExtension)")
    }

    @Test(arguments: ReportFormat.allCases)
    func cdnMeetingReport(_ format: ReportFormat) {
        GoldenFile.check(GoldenTests.cdn.render(format), "meeting-m-cdn.\(format.fileExtension)")
    }

    /// Attacker-shaped ids and titles: the goldens show exactly how each
    /// format defuses them.
    @Test(arguments: ReportFormat.allCases)
    func hostileMeetingReport(_ format: ReportFormat) {
        let report = MeetingReport(log: Fixtures.hostile, config: TierConfig())
        GoldenFile.check(report.render(format), "meeting-hostile.\(format.fileExtension)")
    }

    /// Speaker snapshots and the 1.1 context events in every format.
    @Test(arguments: ReportFormat.allCases)
    func contextMeetingReport(_ format: ReportFormat) {
        let report = MeetingReport(log: Fixtures.withContext, config: TierConfig())
        GoldenFile.check(report.render(format), "meeting-m-ctx.\(format.fileExtension)")
    }

    /// Context changes no figure: the analysis with and without it is the same.
    @Test func contextChangesNoFigure() {
        let with = MeetingReport(log: Fixtures.withContext, config: TierConfig())
        #expect(with.analysis.participantsJSON == GoldenTests.sfu.analysis.participantsJSON)
        #expect(with.analysis.tracksJSON == GoldenTests.sfu.analysis.tracksJSON)
        #expect(with.analysis.issuesJSON == GoldenTests.sfu.analysis.issuesJSON)
    }

    @Test func contextFigures() throws {
        let c = MeetingContext.build(Fixtures.withContext)
        let alice = try #require(c.participant("alice"))
        #expect(alice.talkMs == 32000)  // 3→35 s in alice's snapshots; bob's log shows only 6.5 s of her
        #expect(c.participant("bob")?.talkMs == 15000)
        #expect(c.participant("carol")?.mediaChanges.count == 1)  // heard by alice and bob: one change
        #expect(c.participant("bob")?.interruptions.map { [$0.startTs, $0.endTs] } == [[Fixtures.t0 + 15000, Fixtures.t0 + 27000]])
        #expect(c.participant("bob")?.handups == 1)
        #expect(alice.devices.first?.ts == Fixtures.t0 - 20000)  // before joining, still listed
        #expect(c.shares.map(\.startTs) == [Fixtures.t0 + 5120])
        #expect(c.shares.first?.endTs == Fixtures.t0 + 25120)
        #expect(c.subMeetingMoves.map(\.target) == ["m-42/breakout-1"])
        let notes = MeetingReport(log: Fixtures.withContext, config: TierConfig()).contextNotes
        #expect(notes.contains { $0.explanations.contains("audio route changed to bluetooth 2 s before; reason newDeviceAvailable") })
    }

    @Test(arguments: ReportFormat.allCases)
    func trackReport(_ format: ReportFormat) throws {
        let report = try TrackReport(meeting: GoldenTests.sfu, track: "carol-cam")
        GoldenFile.check(report.render(format), "track-carol-cam.\(format.fileExtension)")
    }

    @Test(arguments: ReportFormat.allCases)
    func fleetReport(_ format: ReportFormat) {
        let fleet = FleetReport(entries: [FleetEntry(GoldenTests.cdn), FleetEntry(GoldenTests.sfu)])
        GoldenFile.check(fleet.render(format), "fleet.\(format.fileExtension)")
    }
}
