import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Hand-made dumps: one helper writes a webrtc-internals document from
/// per-report series, another rtcstats lines; the tests read back the
/// produced event lines.
enum Dump {
    /// A report's series: its type, timestamps (ms) and other properties.
    struct Report {
        var id: String
        var type: String
        var times: [String]
        var props: [(String, [String])] = []
    }

    static func internals(_ connections: [(String, [Report])]) -> String {
        var pcs: [String] = []
        for (key, reports) in connections {
            var stats: [String] = []
            for r in reports {
                func entry(_ prop: String, _ values: [String]) -> String {
                    let inner = "[" + values.joined(separator: ",") + "]"
                    let escaped = inner.replacingOccurrences(of: "\"", with: "\\\"")
                    return "\"\(r.id)-\(prop)\":{\"statsType\":\"\(r.type)\",\"startTime\":\"x\",\"endTime\":\"y\",\"values\":\"\(escaped)\"}"
                }
                stats.append(entry("timestamp", r.times))
                for (p, v) in r.props { stats.append(entry(p, v)) }
            }
            pcs.append("\"\(key)\":{\"url\":\"https://x\",\"stats\":{\(stats.joined(separator: ","))}}")
        }
        return "{\"getUserMedia\":[],\"PeerConnections\":{\(pcs.joined(separator: ","))},\"UserAgent\":\"test\"}"
    }

    static func convert(_ text: String, _ format: InputFormat, file: String = "/d/call.txt.gz", meeting: String? = nil) throws -> Conversion {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { try WebRTCImport.convert($0, format: format, fileName: file, meeting: meeting) }
    }

    static func events(_ c: Conversion) -> [[String: Any]] {
        String(decoding: c.lines, as: UTF8.self).split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    static func reports(_ c: Conversion) -> [[String: Any]] { events(c).filter { $0["event"] as? String == "quality_report" } }

    /// `event@ts` (and the track status) per event, for order checks.
    static func trace(_ c: Conversion) -> [String] {
        events(c).map { e in
            var s = "\(e["event"]!)@\((e["ts"] as! NSNumber).int64Value - t0)"
            if let t = e["timedOut"] as? Bool { s += t ? ":stall" : ":frame" }
            if let track = e["track"] { s += ":\(track)" }
            return s
        }
    }

    static func times(_ offsets: [Double]) -> [String] { offsets.map { String(format: "%.3f", Double(t0) + $0) } }
    static func strings(_ v: [String]) -> [String] { v.map { "\"\($0)\"" } }
}

@Suite struct ImportMappingTests {
    func audio(_ id: String = "IA", times: [Double], received: [Int], lost: [Int], bytes: [Int]? = nil, jitter: [String]? = nil) -> Dump.Report {
        var r = Dump.Report(id: id, type: "inbound-rtp", times: Dump.times(times), props: [
            ("kind", Dump.strings(times.map { _ in "audio" })),
            ("packetsReceived", received.map(String.init)), ("packetsLost", lost.map(String.init)),
        ])
        if let bytes { r.props.append(("bytesReceived", bytes.map(String.init))) }
        if let jitter { r.props.append(("jitter", jitter)) }
        return r
    }

    @Test func lossWithNegativeDeltaAndClamping() throws {
        let c = try Dump.convert(Dump.internals([("1-1", [audio(times: [0, 1000, 2000, 3000], received: [100, 197, 297, 297], lost: [0, 3, 2, 2])])]), .webrtcInternals)
        let loss = Dump.reports(c).map { ($0["loss"] as! NSNumber).doubleValue }
        // 0/100; 3/(97+3) = 3 %; Δlost -1 over 100 received → clamped to 0; nothing
        // received, lost or sent: no report at all (version 2: no data is not perfect quality).
        #expect(loss == [0, 3, 0])
        // Rounded to 2 decimals, printed short.
        let odd = try Dump.convert(Dump.internals([("1-1", [audio(times: [0, 1000], received: [0, 299], lost: [0, 1])])]), .webrtcInternals)
        #expect(String(decoding: odd.lines, as: UTF8.self).contains("\"loss\":0.33,"))
    }

    @Test func counterRestartAndLeaveAndReturn() throws {
        // Sample 3: the report is gone; sample 4 it is back and counts from its last known values;
        // sample 5 packetsReceived went backwards: a restart, counted from zero.
        let a = audio(times: [0, 1000, 3000, 4000], received: [100, 200, 300, 50], lost: [0, 0, 100, 50])
        let keep = Dump.Report(id: "CP", type: "candidate-pair", times: Dump.times([0, 1000, 2000, 3000, 4000]))
        let c = try Dump.convert(Dump.internals([("1-1", [a, keep])]), .webrtcInternals)
        let loss = Dump.reports(c).map { ($0["loss"] as! NSNumber).doubleValue }
        // The sample at 2000 has no RTP report: no quality report for it.
        #expect(loss == [0, 0, 50, 50])
    }

    @Test func rttSelectionOrder() throws {
        func pair(_ id: String, rtt: String, selected: String? = nil, nominated: String? = nil, state: String? = nil, bytes: Int = 0) -> Dump.Report {
            var r = Dump.Report(id: id, type: "candidate-pair", times: Dump.times([0]), props: [("currentRoundTripTime", [rtt]), ("bytesSent", ["\(bytes)"])])
            if let selected { r.props.append(("selected", [selected])) }
            if let nominated { r.props.append(("nominated", [nominated])) }
            if let state { r.props.append(("state", Dump.strings([state]))) }
            return r
        }
        let transport = Dump.Report(id: "T", type: "transport", times: Dump.times([0]), props: [("selectedCandidatePairId", Dump.strings(["CPa"]))])
        let remote = Dump.Report(id: "RI", type: "remote-inbound-rtp", times: Dump.times([0]), props: [("roundTripTime", ["0.2"])])
        func rtt(_ reports: [Dump.Report]) throws -> Int {
            // A received packet makes the sample an interval with RTP: it gets a report.
            let media = audio("IAX", times: [0], received: [1], lost: [0])
            let c = try Dump.convert(Dump.internals([("1-1", reports + [media])]), .webrtcInternals)
            return (Dump.reports(c)[0]["rtt"] as! NSNumber).intValue
        }
        let a = pair("CPa", rtt: "0.0105")
        let b = pair("CPb", rtt: "0.020", selected: "true")
        let n1 = pair("CPc", rtt: "0.030", nominated: "true", state: "succeeded", bytes: 10)
        let n2 = pair("CPd", rtt: "0.040", nominated: "true", state: "succeeded", bytes: 20)
        #expect(try rtt([transport, a, b, n1, remote]) == 11)  // the transport's pair, 10.5 → 11
        #expect(try rtt([transport, pair("CPa", rtt: "0"), b, n1]) == 20)  // no positive RTT: next rule
        #expect(try rtt([n1, n2, remote]) == 40)  // most bytes among nominated+succeeded
        #expect(try rtt([pair("CPe", rtt: "0.05", nominated: "true", state: "in-progress"), remote]) == 200)  // remote mean
        #expect(try rtt([pair("CPf", rtt: "0.0001", selected: "true")]) == 1)  // at least 1 when measured
        let remotes = [Dump.Report(id: "R1", type: "remote-inbound-rtp", times: Dump.times([0]), props: [("roundTripTime", ["0.0101"])]),
                       Dump.Report(id: "R2", type: "remote-inbound-rtp", times: Dump.times([0]), props: [("roundTripTime", ["0.0110"])]),
                       Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0]))]
        #expect(try rtt(remotes) == 11)  // mean 10.55 → 11 (half up)
        #expect(try rtt([Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0]))]) == 0)
    }

    @Test func jitterOnlyFromAudioThatReceived() throws {
        let a = audio(times: [0, 1000, 2000], received: [10, 20, 20], lost: [0, 0, 0], jitter: ["0.0125", "0.0304", "0.5"])
        let v = Dump.Report(id: "IV", type: "inbound-rtp", times: Dump.times([0, 1000, 2000]), props: [
            ("kind", Dump.strings(["video", "video", "video"])), ("packetsReceived", ["1", "2", "3"]), ("jitter", ["0.9", "0.9", "0.9"])])
        let c = try Dump.convert(Dump.internals([("1-1", [a, v])]), .webrtcInternals)
        #expect(Dump.reports(c).map { ($0["jitter"] as! NSNumber).intValue } == [13, 30, 0])
    }

    @Test func bitrateIntervals() throws {
        let a = audio(times: [0, 1000, 3000, 4000], received: [1, 2, 3, 4], lost: [0, 0, 0, 0], bytes: [5000, 130000, 380000, 0])
        let c = try Dump.convert(Dump.internals([("1-1", [a])]), .webrtcInternals)
        // first 0; 125000 B·8/1000 ms = 1000; 250000·8/2000 = 1000; a restart counts from zero: 0 bytes → 0.
        #expect(Dump.reports(c).map { ($0["bitrate"] as! NSNumber).intValue } == [0, 1000, 1000, 0])
        // rtcstats: the interval is between the samples' top-level timestamps, not the line times.
        let lines = [
            #"["getstats","pc",{"timestamp":1795946400000,"I":{"type":"inbound-rtp","kind":"audio","bytesReceived":0,"packetsReceived":1}},1795946400000]"#,
            #"["getstats","pc",{"timestamp":1795946400300,"I":{"bytesReceived":1000,"packetsReceived":2}},1795946401000]"#,
        ].joined(separator: "\n")
        let r = try Dump.convert(lines, .rtcstats)
        #expect(Dump.reports(r).map { ($0["bitrate"] as! NSNumber).intValue } == [0, 27])  // 8000/300 = 26.7 → 27
        #expect(Dump.reports(r).map { ($0["ts"] as! NSNumber).int64Value } == [t0, t0 + 1000])
    }

    @Test func tracksFirstFrameStallResumeUnsubscribeResubscribe() throws {
        let times: [Double] = [0, 1000, 2000, 3000, 4000, 5000, 7000, 8000]
        let frames = ["0", "5", "6", "6", "6", "9", "2", "3"]
        var v = Dump.Report(id: "IV", type: "inbound-rtp", times: Dump.times(times), props: [
            ("kind", Dump.strings(times.map { _ in "video" })), ("ssrc", times.map { _ in "77" }),
            ("trackIdentifier", Dump.strings(times.map { _ in "cam" })), ("framesDecoded", frames)])
        v.props.append(("packetsReceived", times.indices.map { "\($0)" }))
        let keep = Dump.Report(id: "CP", type: "candidate-pair", times: Dump.times([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000]))
        let c = try Dump.convert(Dump.internals([("1-1", [v, keep])]), .webrtcInternals)
        let tracks = Dump.trace(c).filter { !$0.hasPrefix("quality_report") }
        // No packet at 0: not subscribed yet. The first packets and the first frame
        // fall in (0, 1000]: both at its midpoint. Gone at 6000; back in (6000, 7000].
        #expect(tracks == [
            "meeting_join@0", "stream_subscribe@500:cam", "receive_stream_status@500:frame:cam",
            "receive_stream_status@4000:stall:cam", "receive_stream_status@5000:frame:cam",
            "stream_unsubscribe@6000:cam", "stream_subscribe@6500:cam", "receive_stream_status@6500:frame:cam",
            "meeting_leave@8000",
        ])
        let sub = Dump.events(c).first { $0["event"] as? String == "stream_subscribe" }!
        #expect(sub["publisher"] as? String == "remote-77" && sub["kind"] as? String == "camera")
    }

    @Test func orderWithinASample() throws {
        // Track A leaves while B arrives: report, unsubscribe, then B's subscribe and first frame.
        func video(_ id: String, _ times: [Double], frames: [String]) -> Dump.Report {
            Dump.Report(id: id, type: "inbound-rtp", times: Dump.times(times), props: [
                ("kind", Dump.strings(times.map { _ in "video" })), ("framesDecoded", frames),
                ("packetsReceived", times.map { _ in "5" })])
        }
        let c = try Dump.convert(Dump.internals([("1-1", [video("A", [0], frames: ["1"]), video("B", [1000], frames: ["1"])])]), .webrtcInternals)
        // B's first packets and frame lie in (0, 1000]: its midpoint, before that sample's report.
        #expect(Dump.trace(c) == [
            "meeting_join@0", "quality_report@0", "stream_subscribe@0:A", "receive_stream_status@0:frame:A",
            "stream_subscribe@500:B", "receive_stream_status@500:frame:B",
            "quality_report@1000", "stream_unsubscribe@1000:A",
            "meeting_leave@1000",
        ])
    }

    @Test func remoteStampedAlignmentAndShortSeriesAndDerivedKeys() throws {
        let local = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 1000, 2000]), props: [
            ("kind", Dump.strings(["audio", "audio", "audio"])), ("packetsReceived", ["1", "2", "3"]),
            // Shorter: its two values belong to the last two timestamps.
            ("jitter", ["0.010", "0.020"]),
            ("[packetsReceived/s]", ["9", "9", "9"])])
        // Remote values at 500 and 900 both join the sample at 1000 (the latest wins); 2500 is after the last sample.
        let remote = Dump.Report(id: "RI", type: "remote-inbound-rtp", times: Dump.times([-100, 500, 900, 2500]), props: [
            ("roundTripTime", ["0.001", "0.100", "0.300", "0.9"])])
        let c = try Dump.convert(Dump.internals([("1-1", [local, remote])]), .webrtcInternals)
        let reports = Dump.reports(c)
        #expect(reports.count == 3, "remote timestamps add no samples")
        #expect(reports.map { ($0["rtt"] as! NSNumber).intValue } == [1, 300, 0])
        #expect(reports.map { ($0["jitter"] as! NSNumber).intValue } == [0, 10, 20])
    }

    @Test func derivedKeysRemoteInboundFlagTrackIdAndMediaType() throws {
        // A derived series whose name ends in a property the mapping reads is still skipped.
        var a = audio(times: [0, 1000], received: [10, 20], lost: [0, 0])
        a.props.append(("[packetsLost]-packetsLost", ["0", "10"]))
        // An inbound-rtp report flagged isRemote (older Chrome) is not local: no loss from it.
        let remoteFlagged = Dump.Report(id: "IR", type: "inbound-rtp", times: Dump.times([0, 1000]), props: [
            ("isRemote", ["true", "true"]), ("packetsReceived", ["0", "0"]), ("packetsLost", ["0", "50"])])
        // Video known by mediaType, its track named through trackId.
        let video = Dump.Report(id: "IV", type: "inbound-rtp", times: Dump.times([0, 1000]), props: [
            ("mediaType", Dump.strings(["video", "video"])), ("trackId", Dump.strings(["TR", "TR"])), ("ssrc", ["9", "9"])])
        let track = Dump.Report(id: "TR", type: "track", times: Dump.times([0, 1000]), props: [("trackIdentifier", Dump.strings(["cam-9", "cam-9"]))])
        let c = try Dump.convert(Dump.internals([("1-1", [a, remoteFlagged, video, track])]), .webrtcInternals)
        #expect(Dump.reports(c).map { ($0["loss"] as! NSNumber).doubleValue } == [0, 0])
        let sub = Dump.events(c).first { $0["event"] as? String == "stream_subscribe" }
        #expect(sub?["track"] as? String == "cam-9" && sub?["publisher"] as? String == "remote-9")
    }

    @Test func rtcstatsTimeFallsBackToTheSampleTimestamp() throws {
        let lines = [
            #"["getstats","pc",{"timestamp":1795946400000.5,"I":{"type":"inbound-rtp","packetsReceived":1}}]"#,
            #"["getstats","pc",{"timestamp":1795946401000.4,"I":{"packetsReceived":2}}]"#,
            #"["getstats","pc",{"I":{"packetsReceived":3}}]"#,
        ].joined(separator: "\n")
        let c = try Dump.convert(lines, .rtcstats)
        #expect(Dump.reports(c).map { ($0["ts"] as! NSNumber).int64Value } == [t0 + 1, t0 + 1000])
        #expect(c.rejects.map(\.line) == [3] && c.rejects[0].reason.contains("without a usable time"))
    }

    @Test func sampleTimesRoundHalfUp() throws {
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: [String(t0) + ".5", String(t0 + 1) + ".499"], props: [("packetsReceived", ["1", "1"])])
        let c = try Dump.convert(Dump.internals([("1-1", [a])]), .webrtcInternals)
        // .5 → up; x+1.499 → x+1: both round to the same ms, one sample.
        #expect(Dump.reports(c).map { ($0["ts"] as! NSNumber).int64Value } == [t0 + 1])
    }

    @Test func identityAndSkippedConnections() throws {
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0]), props: [("packetsReceived", ["3"])])
        let legacy = Dump.Report(id: "ssrc_1_recv", type: "ssrc", times: Dump.times([0]), props: [("googJitterReceived", ["1"])])
        let other = Dump.Report(id: "M", type: "media-source", times: Dump.times([0]))
        let text = Dump.internals([("9-1", [a]), ("9-2", [legacy]), ("9-3", [other])])
        let c = try Dump.convert(text, .webrtcInternals, file: "/x/y/call.json.txt.gz")
        let e = Dump.events(c)[0]
        // One dump, one person: the uid is the file's name when the dump names nobody.
        #expect(e["meeting"] as? String == "rtc-call" && e["uid"] as? String == "call" && e["engine"] as? String == "sfu")
        #expect(c.connections.map(\.connection) == ["9-1"])
        #expect(c.skipped.map(\.connection) == ["9-2", "9-3"])
        #expect(c.skipped[0].reason.contains("legacy") && c.skipped[1].reason.contains("no standard stats"))
        let named = try Dump.convert(text, .webrtcInternals, meeting: "m-7")
        #expect(Dump.events(named)[0]["meeting"] as? String == "m-7")
    }

    @Test func rtcstatsDeltasStringValuesAndRejects() throws {
        let lines = [
            #"{"clientMeta":1}"#,
            #"["create","pc1",{"iceServers":[]},1795946399000]"#,
            #"["getstats","pc1",{"timestamp":1795946400000,"I":{"type":"inbound-rtp","kind":"audio","packetsReceived":100,"packetsLost":0,"jitter":0.001}},1795946400000]"#,
            "not json",
            #"["getStats","pc1","{\"timestamp\":1795946401000,\"I\":{\"packetsReceived\":190,\"packetsLost\":10}}",1795946401000]"#,
            #"["getstats","pc1",7,1795946402000]"#,
            #"{"ts":1}"#,
            #"["getstats","pc1",{"timestamp":1795946403000},1795946403000]"#,
            #"["getstats","pc1",{"timestamp":1795946404000,"I":{"type":"inbound-rtp","kind":"audio","packetsReceived":200,"packetsLost":10}},1795946404000]"#,
            #"["getstats","pc2",{"timestamp":1795946404000,"S":{"type":"ssrc","googRtt":"5"}},1795946404000]"#,
            "42",
            #"[{"ts":1795946404000,"event":"meeting_join","meeting":"m","uid":"u","engine":"sfu"}]"#,
            "__ping__",
        ].joined(separator: "\n")
        let c = try Dump.convert(lines, .rtcstats)
        #expect(c.rejects.map(\.line) == [4, 6, 11, 12, 13])
        #expect(c.rejects[0].reason.hasPrefix("not valid JSON"))
        // rtcstats-server's keepalive: a reject as any line that is not JSON, named as what it is.
        #expect(c.rejects[4].reason.hasPrefix("rtcstats-server's keepalive (__ping__)"))
        #expect(c.rejects[1].reason == "getstats without an object" && c.rejects[2].reason == "not a JSON array")
        // An array whose first element names no method is no rtcstats line.
        #expect(c.rejects[3].reason.hasPrefix("not an rtcstats line: its first element is not a method name"))
        // The delta kept jitter from the first sample; at 3000 the report is gone (no RTP:
        // no quality report); it came back whole (no jitter).
        #expect(Dump.reports(c).map { ($0["jitter"] as! NSNumber).intValue } == [1, 1, 0])
        #expect(c.connections.map(\.connection) == ["pc1"] && c.connections[0].samples == 4)
        #expect(c.skipped.map(\.connection) == ["pc2"] && c.skipped[0].reason.contains("legacy"))
    }

    @Test func badDumpsAreRejectedWhole() throws {
        #expect(throws: ImportError.self) { try Dump.convert("{\"PeerConnections\":{\"1\":{\"stats\":{}}}", .webrtcInternals) }
        #expect(throws: ImportError.self) { try Dump.convert("{\"getUserMedia\":[]}", .webrtcInternals) }
        #expect(throws: ImportError.self) { try Dump.convert("[1,2]", .webrtcInternals) }
        let badValues = "{\"PeerConnections\":{\"1\":{\"stats\":{\"I-timestamp\":{\"statsType\":\"inbound-rtp\",\"values\":\"[1,\"}}}}}"
        #expect(throws: ImportError.self) { try Dump.convert(badValues, .webrtcInternals) }
        #expect(throws: ImportError.self) { try Dump.convert("\n \n", .rtcstats) }
        #expect(throws: ImportError.self) { try Dump.convert("{\"a\":1}\n{\"b\":2}\n", .rtcstats) }
        // Object lines beside array lines without samples: listed, not read.
        let objects = try Dump.convert("{\"a\":1}\n[\"close\",null,null,1]\n", .rtcstats)
        #expect(objects.connections.isEmpty && objects.skipped.count == 1
            && objects.skipped[0].reason == "JSON object lines: 1 object lines carry no client's getstats samples")
        // A bridge's own rtcstats-server dump (Jitsi's JVB): valid, no events, said so.
        let bridge = """
            {"statsSessionId":"s1","type":"identity","data":{"confName":"c","applicationName":"JVB"}}
            {"statsSessionId":"s1","type":"stats-entry","data":"{\\"endpoints\\":{}}"}

            """
        let server = try Dump.convert(bridge, .rtcstats)
        #expect(server.connections.isEmpty && server.events == 0 && server.lines.isEmpty && server.rejects.isEmpty)
        #expect(server.skipped.map(\.reason) == [
            "a server-side dump (rtcstats-server lines with statsSessionId, as a bridge writes): 2 object lines carry no client's getstats samples",
        ])
        // rtcstats.com's file format 3 (numbered methods) is refused whole,
        // with what it is; so is a format mqa does not know.
        let v3 = "RTCStatsDump\n{\"fileFormat\":3}\n[39,null,{},0]\n"
        #expect(sniffed(v3) == .rtcstats && sniffed(bridge) == .rtcstats)
        #expect { try Dump.convert(v3, .rtcstats) } throws: { "\($0)".contains("rtcstats file format 3 with numbered methods") }
        #expect { try Dump.convert("\n \n" + v3, .rtcstats) } throws: { "\($0)".contains("rtcstats file format 3 with numbered methods") }
        #expect { try Dump.convert("RTCStatsDump\n{\"fileFormat\":4}\n", .rtcstats) } throws: { "\($0)".contains("of file format 4: not read") }
        #expect(throws: ImportError.self) { try Dump.convert("", .rtcstats) }
        // Text without an array line (an error page) is no dump; a damaged
        // array line makes a dump with one bad line.
        #expect { try Dump.convert("<html>502</html>\nBad Gateway\n", .rtcstats) } throws: { "\($0)".contains("no rtcstats lines") }
        #expect(try Dump.convert("[\"getstats\",\"pc1\",{\n", .rtcstats).rejects.map(\.line) == [1])
    }

    @Test func aNumericConnectionIdIsTheConnectionsName() throws {
        // The spec's `[method, pcId, value, ts]` asks no string: a client
        // that numbers its connections lost every sample as "without a
        // peer connection id".
        let lines = (0..<3).map { i in
            #"["getstats",7,{"timestamp":\#(t0 + Int64(i) * 1000),"I":{"type":"inbound-rtp","kind":"audio","packetsReceived":\#(100 * (i + 1)),"packetsLost":0,"bytesReceived":\#(16_000 * (i + 1))}},\#(t0 + Int64(i) * 1000)]"#
        }
        let c = try Dump.convert(lines.joined(separator: "\n"), .rtcstats)
        #expect(c.rejects.isEmpty, "\(c.rejects)")
        #expect(c.connections.map(\.connection) == ["7"] && c.connections[0].samples == 3)
        #expect(Dump.reports(c).count == 3)
    }

    func sniffed(_ s: String) -> InputFormat { Array(s.utf8).withUnsafeBufferPointer { WebRTCImport.sniff($0) } }

    @Test func formatIsToldByContent() {
        func sniff(_ s: String) -> InputFormat { Array(s.utf8).withUnsafeBufferPointer { WebRTCImport.sniff($0) } }
        #expect(sniff("[\"getstats\",\"pc\",{},1]\n") == .rtcstats)
        #expect(sniff("{\"meta\":1}\n[\"create\",\"pc\",{},1]\n") == .rtcstats)
        #expect(sniff("\u{FEFF}{\n \"getUserMedia\": [],\n \"PeerConnections\": {}}") == .webrtcInternals)
        #expect(sniff(qr(t0) + "\n" + qr(t0 + 1)) == .events)
        #expect(sniff("garbage") == .events)
        #expect(sniff("{\n  \"getUserMedia\": [") == .webrtcInternals, "pretty-printed, PeerConnections further on")
        #expect(sniff("{\"getUserMedia\":[" + String(repeating: "{\"a\":1},", count: 9000)) == .webrtcInternals)
        #expect(sniff("{\"UserAgent\":\"x\",\"getUserMedia\":[" + String(repeating: "{\"a\":1},", count: 9000)) == .webrtcInternals,
                "the page's keys in another order")
        #expect(sniff("{\"event\":\"x\",\"UserAgent\":\"x\",\"pad\":[" + String(repeating: "{\"a\":1},", count: 9000)) == .events,
                "a long event line")
        #expect(sniff("{}") == .events)
        #expect(sniff("{\"getUserMedia\":[],\"PeerConnections\":{\"1-1\":{}},\"UserAgent\":\"x\"}\n") == .webrtcInternals)
        // An event log stays one whatever its values and stray lines hold.
        let titled = #"{"ts":\#(t0),"event":"room_title_change","meeting":"m-1","uid":"alice","title":"PeerConnections","previousTitle":"a"}"#
        #expect(sniff(titled + "\n" + qr(t0 + 1)) == .events)
        let nested = #"{"ts":\#(t0),"event":"sdk_debug","meeting":"m-1","uid":"alice","dump":{"PeerConnections":{}}}"#
        #expect(sniff(nested + "\n" + qr(t0 + 1)) == .events)
        #expect(sniff(qr(t0) + "\n[\"stray\"]\n" + qr(t0 + 1) + "\n") == .events)
        #expect(sniff("[\"stray\"]\n" + qr(t0) + "\n" + qr(t0 + 1) + "\n") == .events)
        #expect(sniff("{\"meta\":1}\n[\"create\",\"pc\",{},1]\n{\"server\":true}\n[\"getstats\",\"pc\",{},2]\n") == .rtcstats)
        // From the review: two stray arrays first; an extra field named
        // PeerConnections on an event line; eight metadata lines first.
        let twelve = (0..<12).map { qr(t0 + Int64($0) * 2000) }.joined(separator: "\n") + "\n"
        #expect(sniff("[\"header\",\"v1\"]\n[\"x\"]\n" + twelve) == .events)
        let extra = #"{"ts":\#(t0),"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu","PeerConnections":2}"#
        #expect(sniff(extra + "\n" + qr(t0 + 1) + "\n") == .events)
        let metadata = String(repeating: "{\"meta\":1}\n", count: 8)
        let arrays = (1...10).map { "[\"getstats\",\"pc\",{},\($0)]" }.joined(separator: "\n") + "\n"
        #expect(sniff(metadata + arrays) == .rtcstats)
        #expect(sniff("[\"stray\"]\n" + qr(t0) + "\n") == .events, "a tie: the object line is an event line")
        // Arrays that open with no method name are no dump's lines: two
        // of them before an event line took it as rtcstats, and rejected it.
        #expect(sniff("[1,2]\n[3,4]\n" + qr(t0) + "\n") == .events)
        // A metadata line, then a getstats line longer than the prefix
        // read: the cut line votes (the dump was read as an event log).
        let long = "[\"getstats\",\"pc\",{\"timestamp\":1,\"pad\":\"" + String(repeating: "x", count: 70_000)
        #expect(sniff("{\"clientMeta\":1}\n" + String(long.prefix(65_536 - 17))) == .rtcstats)
        #expect(sniff(qr(t0) + "\n" + qr(t0 + 1) + "\n{\"cut\":\"" + String(repeating: "x", count: 100)) == .events)
        // Two metadata lines before it: the same (the vote was 2 to 1).
        #expect(sniff("{\"clientId\":1}\n{\"statsSessionIdX\":2}\n" + String(long.prefix(65_536 - 40))) == .rtcstats)
        // An event log's long `["debug", …]` line is no dump's, and a cut
        // getstats line after an event line decides nothing.
        let debug = "[\"debug\",\"" + String(repeating: "x", count: 70_000)
        #expect(sniff("{\"log\":\"client\",\"version\":3}\n" + String(debug.prefix(65_536 - 30))) == .events)
        #expect(sniff(qr(t0) + "\n" + String(long.prefix(60_000))) == .events)
        // Nor after event lines that follow the app's own first line (the
        // first object line alone was asked, and 200 events were rejected).
        let twenty = (0..<20).map { qr(t0 + Int64($0) * 2000) }.joined(separator: "\n") + "\n"
        #expect(sniff("{\"log\":\"client\",\"version\":3}\n" + twenty + String(long.prefix(30_000))) == .events)
        #expect(sniff("{\"log\":\"client\"}\n" + twenty + "[\"getstats\",\"pc\",{},1]") == .events, "a last line without its newline")
        // A long first line: a description (a known method) decides, an
        // app's debug line does not.
        let sdp = "[\"setLocalDescription\",\"pc\",{\"sdp\":\"" + String(repeating: "a=x\\r\\n", count: 20_000)
        #expect(sniff("{\"clientId\":1}\n" + String(sdp.prefix(60_000))) == .rtcstats)
        #expect(sniff(String(debug.prefix(65_536))) == .events)
        // Such a cut line asks for a wider look, where the lines after it
        // vote: an app that mirrors its samples into its event log stays an
        // event log (its events came only after the long line, and 200
        // were rejected), a dump stays a dump.
        func verdict(_ s: String) -> WebRTCImport.Verdict {
            Array(s.utf8).withUnsafeBufferPointer { WebRTCImport.verdict($0, wide: false) }
        }
        let sample = String(long.prefix(90_000)) + "\"},1]\n"
        let app = "{\"type\":\"app_start\"}\n{\"type\":\"devices\"}\n" + sample
            + (0..<40).map { qr(t0 + Int64($0) * 2000) + ($0 % 5 == 4 ? "\n[\"getstats\",\"pc\",{},\($0)]" : "") }.joined(separator: "\n") + "\n"
        #expect(verdict(String(app.utf8.prefix(65_536))!) == .lookWider)
        #expect(sniff(app) == .events)
        let dump = "{\"clientId\":1}\n{\"meta\":2}\n" + sample + (1...10).map { "[\"getstats\",\"pc\",{},\($0)]" }.joined(separator: "\n") + "\n"
        #expect(verdict(String(dump.utf8.prefix(65_536))!) == .lookWider)
        #expect(sniff(dump) == .rtcstats)
        // The wider look is the same vote on more lines (one in which the
        // app's objects did not vote made an app log a dump). An object
        // line cut at its end votes there: an app log whose long line
        // ended just before the end tied 1-1 and became a dump. A line
        // still cut at the end, alone, is a dump's.
        func wider(_ s: String) -> InputFormat { sniff(s) }
        let rounds = (0..<30).map { i in
            qr(t0 + Int64(i) * 2000) + "\n{\"level\":\"info\",\"rtt\":\(i)}\n{\"level\":\"info\"}\n[\"getstats\",\"pc\",{},\(i)]\n[\"onicecandidate\",\"pc\",{},\(i)]"
        }.joined(separator: "\n") + "\n"
        #expect(wider("{\"type\":\"app_start\"}\n" + sample + rounds) == .events)
        #expect(wider("{\"type\":\"devices\"}\n" + sample + String(qr(t0).prefix(60))) == .events)
        #expect(wider("{\"type\":\"devices\"}\n" + String(long.prefix(60_000))) == .rtcstats)
        #expect(wider(app) == .events && wider(dump) == .rtcstats)
        // rtcstats-server's lines after a long first sample are a dump's.
        let session = (1...20).map { "{\"statsSessionId\":\"s\",\"type\":\"stats-entry\",\"data\":\($0)}" }.joined(separator: "\n") + "\n"
        #expect(wider(sample + session) == .rtcstats)
        #expect(sniff("[{\"ts\":1}]\n[null]\n[]\n" + qr(t0) + "\n") == .events)
        #expect(sniff(" [ \"getstats\",\"pc\",{},1]\n[\"getstats\",\"pc\",{},2]\n" + qr(t0) + "\n") == .rtcstats)
        // A lone `{` is a pretty-printed dump's first line only when a key
        // (or its end) follows; before object lines it is a log's bad line.
        #expect(sniff("{\n" + qr(t0) + "\n" + qr(t0 + 1) + "\n") == .events)
        #expect(sniff("{\r\n\r\n  \"PeerConnections\": {}\n}") == .webrtcInternals)
        #expect(sniff("{\n") == .webrtcInternals, "nothing after it yet")
        // A tie is broken by an event line, not by any `event` key: an
        // app's own metadata object leaves a dump a dump.
        #expect(sniff("{\"event\":\"upload_complete\",\"bytes\":1}\n[\"getstats\",\"pc\",{},1]\n") == .rtcstats)
        #expect(sniff("{\"ts\":1,\"event\":\"x\",\"uid\":\"u\"}\n[\"stray\"]\n") == .events, "short of one field: still a log line")
        #expect(WebRTCImport.baseName("/a/b/dump.json.txt.gz") == "dump")
        // Version 2 strips `.zst` too.
        #expect(WebRTCImport.baseName("dump.log.zst") == "dump")
    }
}

@Suite struct ImportIngestTests {
    func compress(_ tool: String, _ path: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool, "-q", "-f", "-k", path]
        try p.run()
        p.waitUntilExit()
        return path + (tool == "gzip" ? ".gz" : ".zst")
    }

    @Test func compressedMisnamedDumpsIngestLikeLogs() throws {
        let s = Scratch()
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 1000]), props: [("packetsReceived", ["1", "2"])])
        let plain = s.write("call", [Dump.internals([("1-1", [a])])])
        let gz = try compress("gzip", plain)
        let misnamed = s.dir + "/call.txt"
        try FileManager.default.moveItem(atPath: gz, toPath: misnamed)
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(path: misnamed)
        #expect(summary.formats["webrtc-internals"]?.connections == 1)
        #expect(summary.formats["webrtc-internals"]?.samples == 2)
        #expect(summary.events == 4 && summary.reports == 2 && summary.lines == 4)
        // The same dump zstd-compressed converts to the same events: all duplicates.
        let zst = try compress("zstd", plain)
        let again = try Ingester(store: store).ingest(path: zst)
        #expect(again.duplicates == 0 || again.events == 0)
        let text = try exportText(store)
        #expect(text.contains("\"uid\":\"call\""))
    }

    @Test func rtcstatsRejectsKeepTheirLineNumbers() throws {
        let s = Scratch()
        let file = s.write("r.log", [
            #"["getstats","pc",{"timestamp":1795946400000,"I":{"type":"inbound-rtp","packetsReceived":1}},1795946400000]"#,
            "broken",
            #"["getstats","pc",{"timestamp":1795946401000,"I":{"packetsReceived":2}},1795946401000]"#,
        ])
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        var rejects: [Int] = []
        ingester.onReject = { rejects.append($0.line) }
        let summary = try ingester.ingest(path: file)
        #expect(rejects == [2])
        #expect(summary.lines == summary.events + summary.rejected + summary.duplicates + summary.ignored)
        #expect(summary.reports == 2)
    }

    @Test func aDumpInvalidAfterItsFirstConnectionsStoresNothing() throws {
        let s = Scratch()
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 1000]), props: [("packetsReceived", ["1", "2"])])
        var text = Dump.internals([("1-1", [a]), ("1-2", [a])])
        // Damage the last connection's values: the first is converted and handed on before that is seen.
        let range = text.range(of: "[1,2]", options: .backwards)!
        text.replaceSubrange(range, with: "[1,2")
        let bad = s.write("late.json", [text])
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.commitEvery = 1
        var errors: [String] = []
        ingester.onInputError = { errors.append("\($0)") }
        _ = try ingester.ingest(paths: [bad])
        #expect(ingester.failedInputs == 1 && errors.count == 1 && errors[0].contains("values is not a JSON array"), "\(errors)")
        #expect(try exportText(store).isEmpty, "nothing of a rejected dump is stored")
    }

    @Test func invalidDumpFailsThatFileOnly() throws {
        let s = Scratch()
        let bad = s.write("bad.json", ["{\"PeerConnections\":{\"1\":{\"stats\":{}}"])
        let good = s.write("good.ndjson", [qr(t0)])
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        var errors: [String] = []
        ingester.onInputError = { errors.append("\($0)") }
        let summary = try ingester.ingest(paths: [bad, good])
        #expect(ingester.failedInputs == 1 && summary.reports == 1)
        #expect(errors.count == 1 && errors[0].hasPrefix("\(bad): "), "\(errors)")
    }
}
