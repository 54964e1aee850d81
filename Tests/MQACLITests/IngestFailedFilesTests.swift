import Foundation
import Testing

/// A pipeline that reads only the ingest's JSON or CSV sees an input that
/// failed: `failedFiles` (it read `"files": 1` for two inputs, one
/// missing, and only the exit status and stderr said so).
@Suite struct IngestFailedFilesTests {
    let dir = Scratch()

    @Test func aMissingInputIsCountedInEveryFormat() throws {
        let good = dir.write("good.ndjson", Lines.meeting("m-1"))
        let missing = dir.file("missing.ndjson")
        let json = MQA.run(["ingest", "--db", dir.file("a.sqlite"), good, missing, "-f", "json"])
        #expect(json.status == 1, "\(json)")
        #expect(json.stderr.contains("missing.ndjson: cannot open"), "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["failedFiles"] as? Int == 1)
        #expect(object["files"] as? Int == 1)
        let csv = MQA.run(["ingest", "--db", dir.file("b.sqlite"), good, missing, "-f", "csv"])
        #expect(csv.status == 1)
        #expect(csv.stdout.hasPrefix("files,skippedFiles,failedFiles,lines,"), "\(csv)")
        #expect(csv.stdout.contains("\n1,0,1,"), "\(csv)")
        let text = MQA.run(["ingest", "--db", dir.file("c.sqlite"), good, missing])
        #expect(text.stdout.contains("; 1 failed (see the errors)"), "\(text)")
        // A clean run says 0 in JSON and CSV, and nothing in the text.
        let clean = MQA.run(["ingest", "--db", dir.file("d.sqlite"), good])
        #expect(clean.status == 0)
        #expect(!clean.stdout.contains("failed"), "\(clean)")
    }
}
