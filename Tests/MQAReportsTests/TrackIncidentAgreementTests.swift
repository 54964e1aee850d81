import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAReports
import MQATestSupport

/// The track page and the incidents blame a stall on the same side: both
/// ask `SharedStalls`.
@Suite struct TrackIncidentAgreementTests {
    static func viewer(_ uid: String, stall: (Int64, Int64)?) -> ClientBuilder {
        var c = ClientBuilder(uid)
        c.join(0)
        c.reports(from: 1000, to: 120_000, mos: 4.3)
        c.subscribe(500, "bob", "bob-cam")
        c.status(1500, "bob", "bob-cam", timedOut: false)
        if let (from, to) = stall { c.stall("bob", "bob-cam", from: from, to: to) }
        c.leave(120_000)
        return c
    }

    static func bob() -> ClientBuilder {
        var c = ClientBuilder("bob")
        c.join(0)
        c.reports(from: 1000, to: 120_000, mos: 4.3)
        c.leave(120_000)
        return c
    }

    @Test func everyWatcherStalledIsSenderSideOnBoth() throws {
        let log = meeting([Self.viewer("alice", stall: (40_000, 44_000)), Self.bob(), Self.viewer("carol", stall: (40_600, 43_500))])
        let report = MeetingReport(log: log, config: TierConfig())
        let track = try TrackReport(meeting: report, track: "bob-cam")
        #expect(track.verdict == .senderSide)
        #expect(report.incidents.map(\.cause) == [.publisher] && report.incidents[0].track == "bob-cam")
    }

    @Test func aWatcherWhoPlayedOnMakesItNobodysSenderOnBoth() throws {
        let log = meeting([Self.viewer("alice", stall: (40_000, 44_000)), Self.bob(), Self.viewer("carol", stall: (40_600, 43_500)),
                           Self.viewer("dave", stall: nil)])
        let report = MeetingReport(log: log, config: TierConfig())
        let track = try TrackReport(meeting: report, track: "bob-cam")
        #expect(track.verdict == .subscriberSide && track.sharedStallCount == 0)
        #expect(report.incidents.count == 2 && report.incidents.allSatisfy { $0.track == nil && $0.cause != .publisher })
    }

    @Test func aWatcherWhoseFeedWentSilentCountsNeitherWayOnBoth() throws {
        // dave's app was in the background (no quality report 30–60 s):
        // that he logged no stall says nothing, so the stall stays shared.
        var dave = ClientBuilder("dave")
        dave.join(0)
        dave.reports(from: 1000, to: 30_000, mos: 4.3)
        dave.reports(from: 60_000, to: 120_000, mos: 4.3)
        dave.subscribe(500, "bob", "bob-cam")
        dave.status(1500, "bob", "bob-cam", timedOut: false)
        dave.leave(120_000)
        let log = meeting([Self.viewer("alice", stall: (40_000, 44_000)), Self.bob(), Self.viewer("carol", stall: (40_600, 43_500)), dave])
        let report = MeetingReport(log: log, config: TierConfig())
        #expect(report.analysis.participants.first { $0.uid == "dave" }?.silences.count == 1)
        let track = try TrackReport(meeting: report, track: "bob-cam")
        #expect(track.verdict == .senderSide && track.sharedStallCount == 2)
        #expect(report.incidents.map(\.cause) == [.publisher] && report.incidents[0].track == "bob-cam")
    }
}
