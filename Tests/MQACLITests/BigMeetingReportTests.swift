import Foundation
import Testing

/// `report meeting ID` reads a meeting of more than 262,144 reports a
/// client at a time (`MeetingReport(stored:in:config:)`), a smaller one
/// whole; `report meeting --all` reads it whole in a group. Both give the
/// same page, byte for byte, and the client-at-a-time read is what the
/// single report takes here.
@Suite struct BigMeetingReportTests {
    /// A host and 140 viewers, 1,900 reports each (267,900 in all): the
    /// host's camera freezes for everyone once, and some viewers have loss
    /// spikes of their own.
    static func logs(_ s: Scratch) -> [String] {
        let t0: Int64 = 1_795_946_400_000
        func line(_ ts: Int64, _ uid: String, _ rest: String) -> String {
            #"{"ts":\#(ts),"meeting":"m-big","uid":"\#(uid)","# + rest + "}"
        }
        var paths: [String] = []
        for v in 0...140 {
            let uid = v == 0 ? "host" : "v\(v)"
            var out = [line(t0, uid, #""event":"meeting_join","engine":"sfu","title":"Town hall""#)]
            if v > 0 {
                out.append(line(t0 + 500, uid, #""event":"stream_subscribe","publisher":"host","track":"host-cam","kind":"camera""#))
                out.append(line(t0 + 900, uid, #""event":"receive_stream_status","publisher":"host","track":"host-cam","timedOut":false"#))
                out.append(line(t0 + 600_000, uid, #""event":"receive_stream_status","publisher":"host","track":"host-cam","timedOut":true"#))
                out.append(line(t0 + 606_000, uid, #""event":"receive_stream_status","publisher":"host","track":"host-cam","timedOut":false"#))
            }
            for k in 1...1900 {
                let spike = v % 7 == 3 && k % 300 == 11
                let loss = spike ? "12.5" : String(Double((k * 7 + v) % 9) / 10)
                let rtt = spike ? 620 : 40 + (k + v) % 30
                out.append(line(t0 + Int64(k) * 2000, uid,
                                #""event":"quality_report","loss":\#(loss),"rtt":\#(rtt),"jitter":\#(4 + k % 5),"bitrate":1500,"mos":\#(spike ? "2.9" : "4.2")"#))
            }
            out.append(line(t0 + 3_802_000, uid, #""event":"meeting_leave""#))
            paths.append(s.write("\(uid).ndjson", lines: out))
        }
        return paths
    }

    @Test func aMeetingReadClientByClientIsTheOneReadWhole() throws {
        let s = Scratch()
        let db = s.file("mqa.sqlite")
        let ingest = MQA.run(["ingest", "--db", db] + Self.logs(s), timeout: 600)
        #expect(ingest.status == 0 && ingest.stdout.contains("267900 quality reports"), "\(ingest)")
        for format in ["md", "json", "csv"] {
            let site = s.file("site-\(format)")
            let all = MQA.run(["report", "meeting", "--db", db, "--all", "-f", format, "-o", site], timeout: 600)
            #expect(all.status == 0, "\(all)")
            let one = MQA.run(["report", "meeting", "--db", db, "m-big", "-f", format], timeout: 600)
            #expect(one.status == 0, "\(one)")
            let file = try FileManager.default.contentsOfDirectory(atPath: site).first { $0.hasPrefix("m-big") }
            let whole = try String(contentsOfFile: site + "/" + (file ?? "missing"), encoding: .utf8)
            #expect(one.stdout == whole, "\(format)")
            if format == "md" { #expect(whole.contains("publisher") && whole.contains("own network"), "incidents of both kinds") }
        }
    }
}
