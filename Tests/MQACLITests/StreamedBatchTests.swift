import Foundation
import Testing
@testable import MQACLI
import MQABase
import MQAAnalysis
import MQAStore
import MQAReports

/// `report meeting --all` reads a meeting too big to share a group client
/// by client and writes its page as it is drawn: the files are the ones a
/// group writes, byte for byte. Here every meeting is taken that way
/// (`streamingPast: 0`) and set against every meeting read whole.
@Suite struct StreamedBatchTests {
    @Test(arguments: ReportFormat.allCases)
    func aMeetingWrittenAsItIsDrawnIsTheGroupsFile(_ format: ReportFormat) throws {
        let s = Scratch()
        let logs = s.file("logs")
        #expect(MQA.run(["simulate", "--meetings", "6", "--seed", "3", "--out", logs]).status == 0)
        let files = try FileManager.default.subpathsOfDirectory(atPath: logs).filter { $0.hasSuffix(".ndjson") }.map { logs + "/" + $0 }
        let db = s.file("mqa.sqlite")
        #expect(MQA.run(["ingest", "--db", db] + files).status == 0)
        let store = try EventStore(path: db)
        func site(_ past: Int) throws -> [String: Data] {
            let dir = s.file("site-\(past)")
            let err = try OutputSink(path: s.file("err-\(past).txt"))
            let context = CommandContext(environment: [:], stdout: err, stderr: err)
            #expect(try ReportMeetingCommand.batch(store: store, dir: dir, format: format, config: TierConfig(),
                                                    streamingPast: past, context: context) == 0)
            try err.close()
            var out: [String: Data] = [:]
            for name in try FileManager.default.subpathsOfDirectory(atPath: dir) {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                    out[name] = FileManager.default.contents(atPath: dir + "/" + name)
                }
            }
            return out
        }
        let whole = try site(Int.max), streamed = try site(0)
        #expect(whole.count >= 7, "6 meetings and an index: \(whole.keys.sorted())")
        #expect(streamed.keys.sorted() == whole.keys.sorted())
        for (name, data) in whole { #expect(streamed[name] == data, "\(name)") }
    }
}
