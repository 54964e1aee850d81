import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// A stall shared with many viewers names ten of them in md and html, and
/// all of them in JSON.
@Suite struct TrackSharedNamesTests {
    @Test func mdNamesTenViewersAndCountsTheRest() throws {
        let t = Fixtures.t0
        var host = ClientBuilder("host")
        host.join(t)
        host.reports(from: t + 2000, to: t + 60_000, mos: 4.3, rtt: 60)
        host.leave(t + 60_000)
        var clients = [host.build()]
        for v in 0..<14 {
            var viewer = ClientBuilder("v\(v < 10 ? "0" : "")\(v)")
            viewer.join(t + 100)
            viewer.subscribe(t + 200, "host", "host-cam")
            viewer.status(t + 500, "host", "host-cam", timedOut: false)
            viewer.reports(from: t + 2000, to: t + 60_000, mos: 4.3, rtt: 60)
            viewer.stall("host", "host-cam", from: t + 20_000 + Int64(v) * 10, to: t + 24_000)
            viewer.leave(t + 60_000)
            clients.append(viewer.build())
        }
        let meeting = MeetingReport(log: MeetingLog(meeting: "m-webinar", clients: clients), config: TierConfig())
        let report = try TrackReport(meeting: meeting, track: "host-cam")
        #expect(report.rows.allSatisfy { $0.sharedWith.map(\.count) == [13] })
        #expect(report.markdown.contains("| v01, v02, v03, v04, v05, v06, v07, v08, v09, v10 and 3 more |"), "\(report.markdown)")
        #expect(report.html.contains("v01, v02, v03, v04, v05, v06, v07, v08, v09, v10 and 3 more"))
        #expect(report.json.rendered().contains(#""sharedWith":["v00","v01","v02","v03","v04","v05","v06","v07","v08","v09","v10","v11","v12"]"#))
    }
}
