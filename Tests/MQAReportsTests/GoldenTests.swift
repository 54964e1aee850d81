import MQADomain
import Testing
@testable import MQAReports

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
