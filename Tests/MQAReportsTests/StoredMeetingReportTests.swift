import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
@testable import MQAStore
import MQAIngest
import MQASimulator
import MQATestSupport

/// A meeting report read from the store a client at a time (what `report
/// meeting ID` makes) is the report of the meeting's log read whole, in
/// every format, under any config; a store that fails while the page is
/// drawn fails the output instead of leaving a page short.
@Suite struct StoredMeetingReportTests {
    /// Eight simulated meetings (sfu, cdn and p2p) in a scratch store.
    static func store(_ scratch: ScratchFolder) throws -> EventStore {
        let store = try EventStore(path: scratch.file("mqa.sqlite"))
        var bytes: [UInt8] = []
        _ = try Simulator(seed: 11, meetings: 8).write { bytes.append(contentsOf: $0) }
        let path = scratch.write("sim.ndjson", bytes: bytes)
        _ = try Ingester(store: store).ingest(paths: [path])
        return store
    }

    @Test func readAClientAtATimeIsTheWholeLogsReport() throws {
        let scratch = ScratchFolder()
        let store = try Self.store(scratch)
        var seldom = TierConfig()
        // Reports every ~2 s against a 1.5 s gap: every participant samples
        // too seldom (but on the CDN, which has no reports), so the notice is
        // made from the stored pass too.
        seldom.gapMs = 1500
        seldom.mos = .emodel
        var incidents = 0, notices = 0, engines: Set<String> = []
        for meeting in try store.meetings() {
            for config in [TierConfig(), seldom] {
                let whole = MeetingReport(log: try #require(try store.meetingLog(meeting)), config: config)
                let stored = try MeetingReport(stored: meeting, in: store, config: config)
                for format in ReportFormat.allCases {
                    #expect(try StreamedReportTests.written(stored, format) == whole.render(format), "\(meeting) \(format)")
                }
                // Every client decoded chunk by chunk on each pass, as one
                // of millions of reports is.
                let walked = try MeetingReport(stored: meeting, in: store, config: config, holdingUpTo: 0)
                for format in ReportFormat.allCases {
                    #expect(try StreamedReportTests.written(walked, format) == whole.render(format), "\(meeting) \(format)")
                }
                incidents += stored.incidents.count
                notices += stored.sampling == nil ? 0 : 1
                engines.insert(stored.header.engine ?? "none")
            }
        }
        #expect(incidents > 20 && notices >= 4 && engines.isSuperset(of: ["sfu", "cdn"]), "\(incidents) \(notices) \(engines)")
    }

    /// A log cut off while connected (no leave) ends its connection at its
    /// last report, so its reports decide the talk time its speaker
    /// snapshots measure: read without them, alice's 59 s were 0 and the
    /// Context section was gone.
    @Test func aLogCutOffWhileConnectedKeepsItsTalkTime() throws {
        let scratch = ScratchFolder()
        let store = try EventStore(path: scratch.file("mqa.sqlite"))
        let t0: Int64 = 1_795_946_400_000
        func line(_ dt: Int64, _ uid: String, _ rest: String) -> String {
            #"{"ts":\#(t0 + dt),"meeting":"m-talk","uid":"\#(uid)","# + rest + "}"
        }
        func report(_ dt: Int64, _ uid: String) -> String {
            line(dt, uid, #""event":"quality_report","loss":0.5,"rtt":40,"jitter":5,"bitrate":1500,"mos":4.2"#)
        }
        let lines = [
            line(0, "alice", #""event":"meeting_join","engine":"sfu""#),
            line(1000, "alice", #""event":"active_speakers_change","speakers":["alice","bob"]"#),
            report(2000, "alice"), report(30_000, "alice"), report(60_000, "alice"),
            line(0, "bob", #""event":"meeting_join","engine":"sfu""#),
            line(500, "bob", #""event":"active_speakers_change","speakers":["bob"]"#),
            line(20_000, "bob", #""event":"active_speakers_change","speakers":[]"#),
            report(2000, "bob"), report(40_000, "bob"),
        ]
        _ = try Ingester(store: store).ingest(paths: [scratch.write("talk.ndjson", lines: lines)])
        let whole = MeetingReport(log: try #require(try store.meetingLog("m-talk")), config: TierConfig())
        let stored = try MeetingReport(stored: "m-talk", in: store, config: TierConfig())
        #expect(whole.context.participant("alice")?.talkMs == 59_000)
        for format in ReportFormat.allCases {
            #expect(try StreamedReportTests.written(stored, format) == whole.render(format), "\(format)")
        }
    }

    @Test func aStoreThatFailsWhileThePageIsDrawnFailsTheOutput() throws {
        let scratch = ScratchFolder()
        let store = try Self.store(scratch)
        let meeting = try #require(try store.meetings().first { try store.meetingLog($0)?.engine == "sfu" })
        let report = try MeetingReport(stored: meeting, in: store, config: TierConfig())
        // The charts read the reports again: spoil them in between.
        try store.db.execute("UPDATE report_chunks SET data = zeroblob(length(data))")
        let path = scratch.file("page.html")
        let sink = try OutputSink(path: path)
        report.write(.html, to: sink)
        #expect(throws: OutputError.self) { try sink.close() }
        #expect(!FileManager.default.fileExists(atPath: path), "no page short of its charts")
        #expect(sink.failure?.reason.hasPrefix("left unfinished: the store could not be read:") == true, "\(String(describing: sink.failure))")
    }
}
