import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// What the CLI writes (`RenderedReport.write`, which streams the track
/// JSON and the meeting page; `TiersReport.write`, its JSON) is byte for byte what `render` makes, which
/// the goldens hold: for every fixture meeting, every track and format.
@Suite struct StreamedReportTests {
    static func written(_ format: ReportFormat, _ write: (OutputSink) -> Void) throws -> String {
        let path = NSTemporaryDirectory() + "/mqa-streamed-\(UUID().uuidString.prefix(8)).\(format.fileExtension)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try OutputSink(path: path)
        write(sink)
        try sink.close()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    static func written(_ report: some RenderedReport, _ format: ReportFormat) throws -> String {
        try written(format) { report.write(format, to: $0) }
    }

    @Test(arguments: ReportFormat.allCases)
    func writtenIsRendered(_ format: ReportFormat) throws {
        var tracks = 0
        for log in [Fixtures.sfu, Fixtures.cdn, Fixtures.hostile, Fixtures.withContext, Fixtures.p2p] {
            let meeting = MeetingReport(log: log, config: TierConfig())
            #expect(try Self.written(meeting, format) == meeting.render(format))
            for uid in [nil] + log.clients.map(\.uid) {
                let tiers = TiersReport(meeting.analysis, uid: uid)
                #expect(try Self.written(format) { tiers.write(format, to: $0) } == tiers.render(format))
            }
            for (_, track) in TrackReport.all(meeting: meeting) {
                #expect(try Self.written(track, format) == track.render(format))
                tracks += 1
            }
        }
        #expect(tracks > 5)
    }
}
