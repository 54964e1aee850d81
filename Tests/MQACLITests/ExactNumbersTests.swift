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

    /// A value of more digits than a decimal holds is stored as its
    /// double's shortest decimal, so duplicates stay an equivalence: with
    /// the double kept, 0.1 ≈ double ≈ 0.10000000000000001 made one file
    /// keep one report and three runs two.
    @Test func longDigitsRepeatTheirShortestDecimalWhateverTheSplit() {
        let dir = Scratch()
        let t = Lines.t0 + 2000
        func line(_ rtt: String) -> String {
            "{\"ts\":\(t),\"event\":\"quality_report\",\"meeting\":\"m\",\"uid\":\"a\",\"loss\":0,\"rtt\":\(rtt),\"jitter\":0,\"bitrate\":0,\"mos\":null}\n"
        }
        let join = "{\"ts\":\(Lines.t0),\"event\":\"meeting_join\",\"meeting\":\"m\",\"uid\":\"a\",\"engine\":\"sfu\"}\n"
        let values = ["0.1", "0.1000000000000000000001", "0.10000000000000001"]
        for order in [values, values.reversed()] {
            let one = dir.file("one-\(order[0]).sqlite")
            #expect(MQA.run(["ingest", "--db", one, dir.write("all-\(order[0]).ndjson", join + order.map(line).joined())]).status == 0)
            let three = dir.file("three-\(order[0]).sqlite")
            for (i, v) in order.enumerated() {
                #expect(MQA.run(["ingest", "--db", three, dir.write("part\(i)-\(order[0]).ndjson", (i == 0 ? join : "") + line(v))]).status == 0)
            }
            let whole = MQA.run(["export", "--db", one]).stdout
            #expect(whole == MQA.run(["export", "--db", three]).stdout, "\(order)")
            #expect(whole.contains(#""rtt":0.1,"#) && whole.contains(#""rtt":0.10000000000000001,"#), "\(whole)")
            #expect(whole.components(separatedBy: "quality_report").count - 1 == 2, "\(whole)")
        }
    }
}
