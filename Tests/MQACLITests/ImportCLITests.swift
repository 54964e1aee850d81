import Foundation
import Testing

/// `mqa ingest` on stats dumps, as a user runs it: detection by content,
/// `--input-format`, `--meeting`, the summary's per-format counts, rejects
/// with the dump's line numbers, and a bad dump failing only its file.
@Suite struct ImportCLITests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    static let rtcstats = [
        #"["create","pc1",{},1795946399000]"#,
        #"["getstats","pc1",{"timestamp":1795946400000,"I":{"type":"inbound-rtp","kind":"video","ssrc":5,"packetsReceived":10,"packetsLost":0,"bytesReceived":100,"framesDecoded":1}},1795946400000]"#,
        "{broken",
        #"["getstats","pc1",{"timestamp":1795946402000,"I":{"packetsReceived":20,"bytesReceived":350}},1795946402000]"#,
        #"["getstats","pc2",{"timestamp":1795946402000,"x":{"type":"ssrc"}},1795946402000]"#,
    ].joined(separator: "\n") + "\n"

    static let internals = #"{"PeerConnections":{"3-1":{"stats":{"IA-timestamp":{"statsType":"inbound-rtp","values":"[1795946400000,1795946401000]"},"IA-packetsReceived":{"statsType":"inbound-rtp","values":"[1,2]"}}}}}"#

    func json(_ r: MQA.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// A dump's events are named after its file (or --meeting): the same
    /// bytes under another name are another meeting, never skipped as
    /// "already ingested"; the same name again is.
    @Test func theSameDumpUnderAnotherNameIsAnotherMeeting() {
        let a = dir.write("call-a.txt", ImportCLITests.internals)
        let b = dir.write("call-b.txt", ImportCLITests.internals)
        #expect(MQA.run(["ingest", "--db", db, a]).status == 0)
        let second = MQA.run(["ingest", "--db", db, "--format", "json", b])
        #expect(json(second)["skippedFiles"] as? Int == 0, "\(second)")
        #expect(json(second)["events"] as? Int == 4, "\(second)")
        let again = MQA.run(["ingest", "--db", db, "--format", "json", b])
        #expect(json(again)["skippedFiles"] as? Int == 1, "\(again)")
        let listed = MQA.run(["meetings", "--db", db, "--format", "csv"])
        #expect(listed.stdout.contains("rtc-call-a") && listed.stdout.contains("rtc-call-b"), "\(listed)")
    }

    /// One browser's two downloads are two files of one person that send
    /// the same stream: ingested together, they would count as two people.
    @Test func twoDumpsSendingOneStreamAreTold() {
        func dump(samples: Int, stream: String = "cam-1", ssrc: Int = 9) -> String {
            let sdp = #"{"type":"offer","sdp":"v=0\r\nm=video 9 RTP 96\r\na=sendrecv\r\na=msid:\#(stream) v\r\na=ssrc:\#(ssrc) cname:c\r\n"}"#
            var lines = [
                #"["connectionInfo",null,{"url":"https://meet.example.com/Standup"},1795946399000]"#,
                #"["setLocalDescription","pc1",\#(sdp),1795946399100]"#,
                #"["onconnectionstatechange","pc1","connected",1795946399200]"#,
            ]
            for i in 1...samples {
                lines.append(#"["getstats","pc1",{"timestamp":\#(1795946399000 + 1000 * i),"O":{"type":"outbound-rtp","kind":"video","ssrc":9,"packetsSent":\#(10 * i),"bytesSent":\#(1000 * i)},"I":{"type":"inbound-rtp","kind":"audio","packetsReceived":\#(50 * i),"bytesReceived":\#(5000 * i)},"P":{"type":"candidate-pair","selected":true,"currentRoundTripTime":0.05}},\#(1795946399000 + 1000 * i)]"#)
            }
            return lines.joined(separator: "\n") + "\n"
        }
        let internals = dir.write("ann.txt", dump(samples: 3))
        let rtcstats = dir.write("ann-rtcstats.txt", dump(samples: 4))
        let r = MQA.run(["ingest", "--db", db, internals, rtcstats])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("Warning: meeting rtc-Standup: ann, ann-rtcstats send the same media (remote-9): "
            + "one browser's two downloads"), "\(r)")
        #expect(r.stderr.components(separatedBy: "Warning:").count == 2, "one warning for the pair, not one per name: \(r)")
        #expect(!r.stdout.contains("context "), "names alone are no context to show: \(r)")
        // Each dump alone: nothing to tell.
        let other = dir.file("other.sqlite")
        let alone = MQA.run(["ingest", "--db", other, internals])
        #expect(alone.status == 0 && !alone.stderr.contains("Warning"), "\(alone)")
        // Two people whose app names every stream alike (a short id, their
        // own SSRCs) are no such pair: nothing to tell.
        let bob = dir.write("bob.txt", dump(samples: 3, ssrc: 10))
        let alike = MQA.run(["ingest", "--db", other, bob])
        #expect(alike.status == 0 && !alike.stderr.contains("Warning"), "\(alike)")
    }

    /// Chrome saves every dump as `webrtc_internals_dump.txt`: two people's,
    /// kept in folders of their own, are one participant named after the
    /// file (the spec's uid), whose reports interleave. Said, not hidden.
    @Test func twoDumpsUnderChromesOneFileNameAreTold() throws {
        func dump(ssrc: Int) -> String {
            ([#"["connectionInfo",null,{"url":"https://meet.example.com/standup"},1795946399000]"#]
                + (1...3).map { i in
                    #"["getstats","pc1",{"timestamp":\#(1795946399000 + 1000 * i),"I":{"type":"inbound-rtp","kind":"audio","ssrc":\#(ssrc),"packetsReceived":\#(50 * i),"bytesReceived":\#(5000 * i)}},\#(1795946399000 + 1000 * i)]"#
                }).joined(separator: "\n") + "\n"
        }
        for who in ["ann", "ben"] { try FileManager.default.createDirectory(atPath: dir.file(who), withIntermediateDirectories: true) }
        let ann = dir.write("ann/webrtc_internals_dump.txt", dump(ssrc: 1))
        let ben = dir.write("ben/webrtc_internals_dump.txt", dump(ssrc: 2))
        let r = MQA.run(["ingest", "--db", db, ann, ben])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("Warning: meeting rtc-standup: 2 dumps are named webrtc_internals_dump (\(ann), \(ben)) "
            + "and count as one participant"), "\(r)")
        // Named apart, or named by the dump itself, nothing to tell.
        let apart = MQA.run(["ingest", "--db", dir.file("apart.sqlite"), dir.write("ann.txt", dump(ssrc: 1)), dir.write("ben.txt", dump(ssrc: 2))])
        #expect(apart.status == 0 && !apart.stderr.contains("Warning"), "\(apart)")
        let named = { (uid: String, ssrc: Int) in #"["identity",null,{"userId":"\#(uid)"},1795946399000]"# + "\n" + dump(ssrc: ssrc) }
        let byID = MQA.run(["ingest", "--db", dir.file("byid.sqlite"),
                            dir.write("ann/rtcstats.log", named("u1", 1)), dir.write("ben/rtcstats.log", named("u2", 2))])
        #expect(byID.status == 0 && !byID.stderr.contains("Warning"), "\(byID)")
    }

    @Test func dumpsAreDetectedCountedAndStored() throws {
        let rtc = dir.write("client.log", ImportCLITests.rtcstats)
        let web = dir.write("webrtc_internals_dump.txt", ImportCLITests.internals)
        let bad = dir.write("bad.txt", #"{"PeerConnections":{"#)
        let r = MQA.run(["ingest", "--db", db, "--format", "json", rtc, bad, web])
        #expect(r.status == 1, "a bad dump fails its file: \(r)")
        #expect(r.stderr.contains("Error: \(bad): not valid JSON"), "\(r)")
        #expect(r.stderr.contains("\(rtc):3: not valid JSON"), "\(r)")
        let s = json(r)
        let formats = s["formats"] as? [String: [String: Int]] ?? [:]
        #expect(formats["rtcstats"] == ["files": 1, "connections": 1, "samples": 2, "events": 6], "\(r)")
        #expect(formats["webrtc-internals"] == ["files": 1, "connections": 1, "samples": 2, "events": 4], "\(r)")
        let skipped = s["skippedConnections"] as? [[String: String]] ?? []
        #expect(skipped.count == 1 && skipped[0]["connection"] == "pc2" && skipped[0]["file"] == rtc, "\(r)")
        let lines = s["lines"] as? Int ?? -1
        #expect(lines == (s["events"] as! Int) + (s["rejected"] as! Int) + (s["duplicates"] as! Int) + (s["ignored"] as! Int))
        let export = MQA.run(["export", "--db", db, "--meeting", "rtc-webrtc_internals_dump"])
        #expect(export.status == 0 && export.stdout.contains("\"uid\":\"webrtc_internals_dump\""), "\(export)")
        // Re-ingesting the same dumps is a no-op.
        let again = MQA.run(["ingest", "--db", db, "--format", "json", rtc, web])
        #expect(json(again)["skippedFiles"] as? Int == 2, "\(again)")
    }

    /// An export of dumps carries their connections' context as
    /// A dump whose first sample is longer than the 64 KiB read to tell
    /// the format, after metadata lines, and an app's log that mirrors a
    /// long sample before its events: each read as what it is, plain and
    /// compressed (the first was read as an event log, the second, for a
    /// while, as a dump: every line rejected either way).
    @Test func aLongFirstLineIsJudgedByTheLinesAfterIt() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../MQADomainTests/Fixtures/rtcstats-single-connection.log").standardized.path
        let lines = try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n").map(String.init)
        let sampleAt = try #require(lines.firstIndex { $0.hasPrefix("[\"getstats\"") })
        // The first sample padded past 64 KiB with a report nobody reads.
        let padded = lines[sampleAt].replacingOccurrences(
            of: "{\"timestamp\"", with: "{\"PAD\":{\"type\":\"x\",\"v\":\"\(String(repeating: "p", count: 80_000))\"},\"timestamp\"")
        #expect(padded.utf8.count > 80_000)
        let dump = "{\"clientId\":\"c1\"}\n{\"app\":\"x\"}\n" + lines[..<sampleAt].joined(separator: "\n") + "\n" + padded + "\n"
            + lines[(sampleAt + 1)...].joined(separator: "\n") + "\n"
        let app = "{\"type\":\"app_start\"}\n{\"type\":\"devices\"}\n" + padded + "\n" + Lines.meeting("m-app")
        for (name, text, format) in [("dump.log", dump, "rtcstats"), ("app.ndjson", app, "events")] {
            let plain = dir.write(name, text)
            #expect(MQA.shell("gzip -k \"$F\"", environment: ["F": plain]).status == 0)
            for file in [plain, plain + ".gz"] {
                let r = MQA.run(["ingest", "--db", file + ".sqlite", "--format", "json", file])
                let formats = (json(r)["formats"] as? [String: Any])?.keys.sorted() ?? []
                #expect(formats == [format] && (json(r)["events"] as? Int ?? 0) > 0, "\(file): \(r)")
            }
        }
    }

    /// `mqa_connection_context` lines: an event name outside the log
    /// format, counted as ignored (the spec's identity), yet stored, and
    /// the summary says so rather than "unknown event names" alone.
    @Test func contextLinesOfAnExportAreCountedAsKept() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../MQADomainTests/Fixtures/rtcstats-single-connection.log").standardized.path
        #expect(MQA.run(["ingest", "--db", db, fixture]).status == 0)
        let export = MQA.run(["export", "--db", db])
        let contexts = export.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"mqa_connection_context\"") }.count
        #expect(export.status == 0 && contexts > 0, "\(export)")
        let exported = dir.write("export.ndjson", export.stdout)
        let again = MQA.run(["ingest", "--db", dir.file("again.sqlite"), "--format", "json", exported])
        #expect(again.status == 0, "\(again)")
        let s = json(again)
        #expect(s["ignored"] as? Int == contexts && s["contextLines"] as? Int == contexts, "\(again)")
        let text = MQA.run(["ingest", "--db", dir.file("text.sqlite"), exported])
        #expect(text.stdout.contains("\(contexts) of them mqa's connection context lines, kept"), "\(text)")
        #expect(MQA.run(["export", "--db", dir.file("again.sqlite")]).stdout == export.stdout)
    }

    /// A skipped connection's id comes from the dump: in the text summary
    /// its control characters are shown as escapes, never sent raw.
    @Test func skippedConnectionIdsCannotDriveTheTerminal() {
        let dump = ImportCLITests.rtcstats.replacingOccurrences(of: #""pc2""#, with: #""pc\u001b]0;owned\u0007""#)
        let rtc = dir.write("client.log", dump)
        let r = MQA.run(["ingest", "--db", db, rtc])
        #expect(r.stdout.contains("connection pc\\u001b]0;owned\\u0007: "), "\(r)")
        #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(r)")
        // JSON keeps the id exact; its own escaping makes it safe.
        let j = MQA.run(["ingest", "--db", dir.file("other.sqlite"), "--format", "json", rtc])
        let skipped = json(j)["skippedConnections"] as? [[String: String]] ?? []
        #expect(skipped.first?["connection"] == "pc\u{1B}]0;owned\u{07}", "\(j)")
    }

    @Test func forcedFormatAndMeeting() {
        let web = dir.write("w.json", ImportCLITests.internals)
        let forced = MQA.run(["ingest", "--db", db, "--input-format", "rtcstats", web])
        #expect(forced.status == 1 && forced.stderr.contains("\(web): "), "\(forced)")
        let named = MQA.run(["ingest", "--db", db, "--input-format", "webrtc-internals", "--meeting", "m-call", web])
        #expect(named.status == 0, "\(named)")
        #expect(named.stdout.contains("webrtc-internals: 1 files, 1 connections, 2 samples, 4 events"), "\(named)")
        #expect(MQA.run(["report", "meeting", "m-call", "--db", db, "--format", "json"]).status == 0)
        let usage = MQA.run(["ingest", "--db", db, "--input-format", "csv", web])
        #expect(usage.status == 64, "\(usage)")
        let help = MQA.run(["ingest", "--help"])
        #expect(help.stdout.contains("--input-format") && help.stdout.contains("--meeting"))
    }

    @Test func gzipDumpAndDamagedGzip() throws {
        let path = dir.write("c.log", ImportCLITests.rtcstats)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gzip", "-f", path]
        try p.run()
        p.waitUntilExit()
        let gz = try Data(contentsOf: URL(fileURLWithPath: path + ".gz"))
        let r = MQA.run(["ingest", "--db", db, "--format", "json", path + ".gz"])
        #expect(r.status == 3, "\(r)")
        #expect((json(r)["formats"] as? [String: [String: Int]])?["rtcstats"]?["events"] == 6, "\(r)")
        // A damaged gzip stream fails its file with a clear reason.
        let cut = dir.write("cut.gz", bytes: Array(gz.prefix(gz.count - 12)))
        let damaged = MQA.run(["ingest", "--db", db, cut])
        #expect(damaged.status == 1 && damaged.stderr.contains("\(cut): gzip stream is damaged or truncated"), "\(damaged)")
    }
}
