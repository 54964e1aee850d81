import Foundation
import Testing

/// "Exact decimals", checked through the built binary: values just outside
/// a range are rejected however close they are, values the store keeps come
/// back from `mqa export` digit for digit, and a huge `ts` is out of range.
@Suite struct ExactNumbersTests {
    @Test func rangesAreExactAndExportKeepsEveryDigit() {
        let dir = Scratch()
        let db = dir.file("store.sqlite")
        func line(_ ts: Int64, _ values: String) -> String {
            "{\"ts\":\(ts),\"event\":\"quality_report\",\"meeting\":\"m\",\"uid\":\"a\",\(values)}\n"
        }
        let t0 = Lines.t0
        let text = "{\"ts\":\(t0),\"event\":\"meeting_join\",\"meeting\":\"m\",\"uid\":\"a\",\"engine\":\"sfu\"}\n"
            + line(t0 + 2000, #""loss":0,"rtt":123456789.123456789,"jitter":0,"bitrate":0,"mos":null"#)
            + line(t0 + 4000, #""loss":0,"rtt":0.000000000001,"jitter":0,"bitrate":0,"mos":4.2"#)
            + line(t0 + 6000, #""loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":0.99999999999999999999999"#)
            + line(t0 + 8000, #""loss":100.00000000000000000001,"rtt":1,"jitter":1,"bitrate":1,"mos":4"#)
            + line(t0 + 10000, #""loss":1,"rtt":50.0000000000000000000001,"jitter":1,"bitrate":1,"mos":4"#)
            + "{\"ts\":1e30,\"event\":\"reconnect\",\"meeting\":\"m\",\"uid\":\"a\"}\n"
        let path = dir.write("exact.ndjson", text)
        let r = MQA.run(["ingest", "--db", db, path])
        #expect(r.status == 3, "\(r)")
        #expect(r.stderr.contains("exact.ndjson:4: mos: 0.99999999999999999999999 is outside 1–5"), "\(r)")
        #expect(r.stderr.contains("exact.ndjson:5: loss: 100.00000000000000000001 is outside 0–100"), "\(r)")
        #expect(!r.stderr.contains("exact.ndjson:6:"), "in range, kept as the double 50: \(r)")
        #expect(r.stderr.contains("exact.ndjson:7: ts: 1e30 is out of range"), "\(r)")
        let export = MQA.run(["export", "--db", db])
        #expect(export.status == 0, "\(export)")
        // Both in one column: they share no 64-bit scale, and still come back exactly.
        #expect(export.stdout.contains(#""rtt":123456789.123456789,"#), "\(export)")
        #expect(export.stdout.contains(#""rtt":1e-12,"#), "\(export)")
        #expect(export.stdout.contains(#""loss":1,"rtt":50,"jitter":1,"#), "\(export)")
        // Exported, ingested again and exported: the same text, the double
        // included (its shortest digits, read back as a decimal).
        let again = dir.file("again.sqlite")
        #expect(MQA.run(["ingest", "--db", again, dir.write("export.ndjson", export.stdout)]).status == 0)
        #expect(MQA.run(["export", "--db", again]).stdout == export.stdout)
        #expect(MQA.run(["check", "--db", db]).status == 0)
    }
}
