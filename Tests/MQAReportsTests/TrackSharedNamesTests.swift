import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// A stall shared with many viewers names ten of them in md and html, and
/// up to 100 in JSON, which counts them all.
@Suite struct TrackSharedNamesTests {
    /// `viewers` viewers of host's camera who all stall together.
    static func webinar(viewers: Int) throws -> TrackReport {
        let t = Fixtures.t0
        var host = ClientBuilder("host")
        host.join(t)
        host.reports(from: t + 2000, to: t + 60_000, mos: 4.3, rtt: 60)
        host.leave(t + 60_000)
        var clients = [host.build()]
        for v in 0..<viewers {
            var viewer = ClientBuilder("v\(v < 10 ? "00" : v < 100 ? "0" : "")\(v)")
            viewer.join(t + 100)
            viewer.subscribe(t + 200, "host", "host-cam")
            viewer.status(t + 500, "host", "host-cam", timedOut: false)
            viewer.reports(from: t + 2000, to: t + 60_000, mos: 4.3, rtt: 60)
            viewer.stall("host", "host-cam", from: t + 20_000 + Int64(v) * 10, to: t + 24_000)
            viewer.leave(t + 60_000)
            clients.append(viewer.build())
        }
        let meeting = MeetingReport(log: MeetingLog(meeting: "m-webinar", clients: clients), config: TierConfig())
        return try TrackReport(meeting: meeting, track: "host-cam")
    }

    @Test func mdNamesTenViewersAndCountsTheRest() throws {
        let report = try Self.webinar(viewers: 14)
        #expect(report.rows.allSatisfy { $0.sharedWith.map(\.count) == [13] })
        #expect(report.markdown.contains("| v001, v002, v003, v004, v005, v006, v007, v008, v009, v010 and 3 more |"), "\(report.markdown)")
        #expect(report.html.contains("v001, v002, v003, v004, v005, v006, v007, v008, v009, v010 and 3 more"))
        let names = (0..<13).map { #""v0\#($0 < 10 ? "0" : "")\#($0)""# }.joined(separator: ",")
        #expect(report.json.rendered().contains(#""sharedWith":[\#(names)],"sharedWithCount":13"#))
    }

    @Test func jsonNamesAHundredViewersAndCountsThemAll() throws {
        let report = try Self.webinar(viewers: 120)
        #expect(report.rows.allSatisfy { $0.sharedWith.map(\.count) == [119] })
        let names = (1...100).map { #""v\#($0 < 10 ? "00" : $0 < 100 ? "0" : "")\#($0)""# }.joined(separator: ",")
        #expect(report.json.rendered().contains(#""sharedWith":[\#(names)],"sharedWithCount":119"#))
        // Streamed as the command writes it, the same.
        #expect(try StreamedReportTests.written(report, .json) == report.render(.json))
    }
}
