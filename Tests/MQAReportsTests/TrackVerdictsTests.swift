import Testing
@testable import MQAReports
import MQAAnalysis
import MQATestSupport

/// A meeting page's verdict of each track, made without the track reports'
/// rows (`TrackReport.verdicts`), is the verdict of each track's report.
@Suite struct TrackVerdictsTests {
    @Test func theVerdictsAreThoseOfTheTrackReports() throws {
        let scratch = ScratchFolder()
        let store = try StoredMeetingReportTests.store(scratch)
        var seen: Set<TrackReport.Verdict> = []
        for meeting in try store.meetings() {
            let report = MeetingReport(log: try #require(try store.meetingLog(meeting)), config: TierConfig())
            let verdicts = TrackReport.verdicts(meeting: report)
            #expect(verdicts == TrackReport.all(meeting: report).mapValues(\.verdict), "\(meeting)")
            seen.formUnion(verdicts.values)
        }
        // Both sides and the quiet tracks among them, or the check proves little.
        #expect(seen.isSuperset(of: [.senderSide, .subscriberSide, .noStalls]), "\(seen)")
    }
}
