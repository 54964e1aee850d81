import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// What the CLI writes (`RenderedReport.write`, which streams the track
/// JSON and the meeting page) is byte for byte what `render` makes, which
/// the goldens hold: for every fixture meeting, every track and format.
@Suite struct StreamedReportTests {
    static func written(_ report: some RenderedReport, _ format: ReportFormat) throws -> String {
        let path = NSTemporaryDirectory() + "/mqa-streamed-\(UUID().uuidString.prefix(8)).\(format.fileExtension)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try OutputSink(path: path)
        report.write(format, to: sink)
        try sink.close()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(arguments: ReportFormat.allCases)
    func writtenIsRendered(_ format: ReportFormat) throws {
        var tracks = 0
        for log in [Fixtures.sfu, Fixtures.cdn, Fixtures.hostile, Fixtures.withContext, Fixtures.p2p] {
            let meeting = MeetingReport(log: log, config: TierConfig())
            #expect(try Self.written(meeting, format) == meeting.render(format))
            for (_, track) in TrackReport.all(meeting: meeting) {
                #expect(try Self.written(track, format) == track.render(format))
                tracks += 1
            }
        }
        #expect(tracks > 5)
    }
}
