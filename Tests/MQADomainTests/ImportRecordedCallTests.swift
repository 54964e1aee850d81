import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// Patterns from calls recorded in Chromium 156 with known ground truth
/// (a relay between two browsers dropping, delaying and blocking packets
/// at set times): each test is one thing such a dump told wrongly.
@Suite struct ImportRecordedCallTests {
    /// An audio report of a webrtc-internals connection sampled each
    /// second from `from` to `to` (offsets from t0, ms).
    static func audio(_ from: Int, _ to: Int) -> Dump.Report {
        let times = Array(stride(from: from, through: to, by: 1000))
        return Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times(times.map(Double.init).map { $0 / 1000 }), props: [
            ("kind", Dump.strings(times.map { _ in "audio" })), ("packetsReceived", times.indices.map { "\(50 * ($0 + 1))" }),
            ("bytesReceived", times.indices.map { "\(5000 * ($0 + 1))" })])
    }

    /// A dump of one connection with Chrome 156's log entries.
    static func internals(_ report: Dump.Report, log: [String]) -> String {
        Dump.internals([("8-1", [report])]).replacingOccurrences(
            of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro","updateLog":[\#(log.joined(separator: ","))],"#)
    }

    /// Chrome 156's shape: handler names, quoted JSON values, epoch ms with a fraction.
    static func entry(_ type: String, _ value: String, at ms: Double) -> String {
        let quoted = value.isEmpty ? "" : #"\"\#(value)\""#
        return #"{"type":"\#(type)","value":"\#(quoted)","timestamp":\#(String(format: "%.3f", Double(t0) + ms))}"#
    }

    /// A test page that takes its room as a parameter: each call's dumps
    /// are their own meeting. Its last path segment, `call.html`, made one
    /// meeting of every call recorded with it.
    @Test func aRoomInThePageQueryNamesTheMeeting() throws {
        func dump(_ url: String) -> String {
            Dump.internals([("8-1", [Self.audio(0, 4000)])]).replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"\#(url)","#)
        }
        let uplink = try Dump.convert(dump("http://10.99.0.254:8080/call.html?room=uplink&me=A&peers=B,C"), .webrtcInternals, file: "/d/uplink-A.json")
        let clean = try Dump.convert(dump("http://10.99.0.254:8080/call.html?room=clean&me=A&peers=B"), .webrtcInternals, file: "/d/clean-A.json")
        #expect(Dump.events(uplink).allSatisfy { $0["meeting"] as? String == "rtc-uplink" })
        #expect(Dump.events(clean).allSatisfy { $0["meeting"] as? String == "rtc-clean" })
        let join = Dump.events(uplink).first { $0["event"] as? String == "meeting_join" }
        #expect(join?["title"] as? String == "uplink", "\(String(describing: join))")
    }

    /// Chrome 156 logs `onconnectionstatechange` with `"\"failed\""` and a
    /// `timestamp`; read as before 156's `connectionstatechange` and
    /// `time`, a call that dropped, came back and failed was a hang-up at
    /// its last sample with no disconnect.
    @Test func chrome156StateLogIsRead() throws {
        let log = [
            Self.entry("oniceconnectionstatechange", "connected", at: -800.4),
            Self.entry("onconnectionstatechange", "connected", at: -799.6),
            Self.entry("oniceconnectionstatechange", "disconnected", at: 3000.4),
            Self.entry("onconnectionstatechange", "disconnected", at: 3000.6),
            Self.entry("onconnectionstatechange", "connected", at: 5000.5),
            Self.entry("onconnectionstatechange", "disconnected", at: 7000.2),
            Self.entry("onconnectionstatechange", "failed", at: 9000.7),
        ]
        let c = try Dump.convert(Self.internals(Self.audio(0, 6000), log: log), .webrtcInternals, file: "/d/s4b.json")
        #expect(RTC.trace(c) == ["meeting_join@0", "disconnect@3001", "reconnect@5001", "disconnect@7000", "disconnect@9001:connection_failed"])
        // The app's close, with its own time: the leave is then, not at the last sample.
        let closed = [Self.entry("onconnectionstatechange", "connected", at: -800), Self.entry("close", "", at: 6800.8)]
        let c2 = try Dump.convert(Self.internals(Self.audio(0, 6000), log: closed), .webrtcInternals, file: "/d/s1.json")
        #expect(RTC.trace(c2) == ["meeting_join@0", "meeting_leave@6801"])
        #expect(WebRTCInternalsImporter.eventName("ondatachannel") == "datachannel")
        #expect(WebRTCInternalsImporter.eventName("onicecandidate") == "onicecandidate")
    }

    /// Chrome 156 logs `ontrack` as JSON; its stream names the publisher.
    @Test func chrome156TrackEventsNameThePublisher() {
        let json = #"{"kind":"video","id":"c443a1f0","label":"remote video","streams":["c909014f"]}"#
        #expect(WebRTCInternalsImporter.trackEventTrackAndStream(json).map { [$0.0, $0.1] } == ["c443a1f0", "c909014f"])
        #expect(WebRTCInternalsImporter.trackEventTrackAndStream("video:t1 stream:s1").map { [$0.0, $0.1] } == ["t1", "s1"])
        #expect(WebRTCInternalsImporter.trackEventTrackAndStream(#"{"kind":"video","id":"x","streams":[]}"#) == nil)
    }

    /// The receiving side of a data channel logs `ondatachannel`: its
    /// connection is skipped for the same reason as the creator's.
    @Test func theReceivingSideOfADataChannelSaysSo() throws {
        let pair = Dump.Report(id: "CP", type: "candidate-pair", times: Dump.times([0, 1, 2]), props: [("currentRoundTripTime", ["0.01", "0.01", "0.01"])])
        let text = Dump.internals([("8-1", [pair])]).replacingOccurrences(
            of: #"{"url":"https://x","#, with: #"{"url":"https://x","updateLog":[\#(Self.entry("ondatachannel", "", at: 10))],"#)
        let c = try Dump.convert(text, .webrtcInternals, file: "/d/bob.json")
        #expect(c.skipped.map(\.reason) == ["no media: never sent or received RTP (a data channel)"], "\(c.skipped)")
    }

    /// Chrome drops a closed connection from the page: a dump saved after
    /// the call is empty, which is said, not passed over.
    @Test func aDumpWithoutConnectionsSaysWhy() throws {
        let c = try Dump.convert(#"{"getUserMedia":[],"PeerConnections":{},"UserAgent":"Chrome/156"}"#, .webrtcInternals, file: "/d/empty.json")
        #expect(c.connections.isEmpty && c.lines.isEmpty)
        #expect(c.skipped.count == 1 && c.skipped[0].connection == "" && c.skipped[0].reason.contains("keepRemovedConnections"), "\(c.skipped)")

        // rtcstats-server's JSON of 2016 keeps its connections under a
        // lowercase `peerConnections`: that is what is said, not the page.
        let legacy = #"{"PeerConnections":{},"peerConnections":{"PC_0":[{"time":"2016-01-28T18:24:20.210Z","type":"create"}]}}"#
        let old = try Dump.convert(legacy, .webrtcInternals, file: "/d/clienttest.json")
        #expect(old.skipped.map(\.reason) == [WebRTCInternalsImporter.legacyConnections], "\(old.skipped)")
        let none = try Dump.convert(#"{"PeerConnections":{},"peerConnections":{ }}"#, .webrtcInternals, file: "/d/e.json")
        #expect(none.skipped.map(\.reason) == [WebRTCInternalsImporter.noConnections], "\(none.skipped)")
    }

    /// The receiver set `sendonly` for 13 s: packets stopped (a pause, the
    /// subscription ends) and Chrome counted the whole gap as one freeze
    /// when frames came back. That freeze is the pause: no stall. A freeze
    /// the counters show after a track's very first frame is still one.
    @Test func theFreezeAResumedStreamEndsIsItsPause() throws {
        func run(_ packets: [Int], _ frames: [Int], _ freezes: [Int], _ durations: [String]) throws -> [String] {
            var lines = RTC.header()
            for i in packets.indices {
                let extra = ",\"freezeCount\":\(freezes[i]),\"totalFreezesDuration\":\(durations[i])"
                lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [
                    RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: packets[i], frames: frames[i], extra: extra)]))
            }
            return RTC.trace(try RTC.convert(lines))
        }
        let resumed = try run([10, 20, 30, 30, 30, 30, 40, 50], [5, 10, 15, 15, 15, 15, 20, 25],
                              [0, 0, 0, 0, 0, 0, 1, 1], ["0", "0", "0", "0", "0", "0", "3.6", "3.6"])
        #expect(resumed == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "stream_unsubscribe@3500:cam", "stream_subscribe@6500:cam", "receive_stream_status@6500:frame:cam",
            "meeting_leave@8000",
        ])
        // Packets first, then the first frame with a freeze after it: a stall.
        let first = try run([10, 20, 30, 40], [0, 0, 20, 40], [0, 0, 1, 1], ["0", "0", "0.4", "0.4"])
        #expect(first == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@2000:frame:cam",
            "receive_stream_status@2600:stall:cam", "receive_stream_status@3000:frame:cam", "meeting_leave@4000",
        ])
    }

    /// The page took no sample for 6 s while the network was down; packets
    /// came back in the sample after the gap, frames in the next one. The
    /// subscription's time is known only to the 6 s interval: only the
    /// time between the two samples is a proven delay, so no slow start
    /// is claimed from the gap (webrtc-import.md: "never … from sampling
    /// granularity alone").
    @Test func aSamplingGapIsNoSlowFirstFrame() throws {
        var lines = RTC.header()
        let times: [Int64] = [1000, 2000, 3000, 9000, 10000, 11000]
        let packets = [10, 20, 20, 20, 30, 40], frames = [5, 10, 10, 10, 10, 15]
        for i in times.indices {
            lines.append(RTC.stats("PC_0", times[i], [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: packets[i], frames: frames[i])]))
        }
        let trace = RTC.trace(try RTC.convert(lines))
        // Packets back in (9000, 10000]: subscribed at 9500; the frame in
        // (10000, 11000], one sample on: no delay is claimed.
        #expect(trace == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "stream_unsubscribe@2500:cam", "stream_subscribe@9500:cam", "receive_stream_status@9500:frame:cam",
            "meeting_leave@11000",
        ])
    }

    /// The network went down for 6 s while this side kept sending into
    /// it: no report came back from the far end, and the interval was
    /// "loss 0 %, RTT 2 ms (the pair's last), 500 kbps: excellent" up to
    /// the drop. Sending with no word back is no figure: no report, as
    /// for an interval without RTP. With a report back it is the sender's
    /// view, as before.
    @Test func sendingIntoTheVoidIsNoPerfectQuality() throws {
        let back = ("RA", #""type":"remote-inbound-rtp","kind":"audio","fractionLost":0.02,"roundTripTime":0.05"#)
        let c = try RTC.convert(RTC.header() + [
            RTC.stats("PC_0", 1000, [RTC.audioOut(50, bytes: 25_000), RTC.pair, back]),
            RTC.stats("PC_0", 2000, [RTC.audioOut(100, bytes: 50_000), RTC.pair, back]),
            RTC.stats("PC_0", 3000, [RTC.audioOut(150, bytes: 75_000), RTC.pair]),
            RTC.stats("PC_0", 4000, [RTC.audioOut(200, bytes: 100_000), RTC.pair]),
            RTC.stats("PC_0", 5000, [RTC.audioOut(250, bytes: 125_000), RTC.pair, back]),
        ])
        let reports = Dump.reports(c).map { (($0["ts"] as! NSNumber).int64Value - t0, ($0["loss"] as! NSNumber).doubleValue) }
        #expect(reports.map(\.0) == [1000, 2000, 5000], "\(reports)")
        #expect(reports.allSatisfy { $0.1 == 2 })
    }

    /// Chrome's webrtc-internals page also saves an rtcstats dump, in
    /// file format 3: a header, `{"fileFormat":3}`, then lines whose last
    /// element is the time (the first absolute, each later one the ms since
    /// the line before), full reports in each `getStats`, states as JSON
    /// text, `ontrack` as an array, the browser as `userAgentData`, the page
    /// in `create`. It reads as the webrtc-internals dump of the same call
    /// does (19 recorded dumps: the same events within 18 ms).
    @Test func chromesFormat3RTCStatsDumpIsRead() throws {
        func stats(_ packets: Int, _ frames: Int, delta: String) -> String {
            let video = #""IV":{"type":"inbound-rtp","kind":"video","id":"IV","ssrc":7,"trackIdentifier":"tv","packetsReceived":\#(packets),"bytesReceived":\#(packets * 1000),"framesDecoded":\#(frames),"timestamp":1,"[codec]":"VP8 (96)"}"#
            let audio = #""IA":{"type":"inbound-rtp","kind":"audio","id":"IA","packetsReceived":\#(packets * 5),"packetsLost":0,"bytesReceived":\#(packets * 500),"jitter":0.002}"#
            return #"["getStats","8-1",{\#(video),\#(audio)},\#(delta)]"#
        }
        let lines = [
            "RTCStatsDump",
            #"{"fileFormat":3}"#,
            #"["create",null,{"userAgentData":{"brands":[{"brand":"Not:A-Brand","version":"8"},{"brand":"Chromium","version":"156"}],"mobile":false,"platform":"Linux"}},\#(t0 - 2000)]"#,
            #"["navigator.mediaDevices.getUserMedia","8-0",{"audio":true},"getUserMedia-8-1-0","https://meet.example.com/room/Retro/",500.25]"#,
            #"["create","8-1",{"alwaysNegotiateDataChannels":false},"https://meet.example.com/room/Retro/",499.5]"#,
            #"["ontrack","8-1",["video","tv","remote video","peer-stream"],0.125]"#,
            #"["onconnectionstatechange","8-1","\"connected\"",0.125]"#,  // t0 - 1000
            stats(10, 5, delta: "1000.25"),  // t0 + 0.25
            stats(20, 10, delta: "1000"),  // t0 + 1000.25
            #"["onconnectionstatechange","8-1","\"disconnected\"",1500]"#,  // t0 + 2500.25
            #"["onconnectionstatechange","8-1","\"connected\"",1000]"#,  // t0 + 3500.25
            stats(30, 15, delta: "500"),  // t0 + 4000.25
            #"["close","8-1",null,1000]"#,  // t0 + 5000.25
            #"["remove","8-1",null,500]"#,
        ]
        let c = try Dump.convert(lines.joined(separator: "\n"), .rtcstats, file: "/d/rtcstats_dump.txt")
        #expect(c.rejects.isEmpty && c.skipped.isEmpty, "\(c.rejects) \(c.skipped)")
        #expect(RTC.trace(c) == [
            "meeting_join@0", "stream_subscribe@0:tv", "receive_stream_status@0:frame:tv",
            "disconnect@2500", "reconnect@3500", "stream_subscribe@3500:tv", "receive_stream_status@3500:frame:tv",
            "meeting_leave@5000",
        ])
        let join = Dump.events(c)[0]
        #expect(join["meeting"] as? String == "rtc-Retro" && join["platform"] as? String == "linux" && join["device"] as? String == "Chrome 156")
        let subscribe = try #require(Dump.events(c).first { $0["event"] as? String == "stream_subscribe" })
        #expect(subscribe["publisher"] as? String == "peer-stream")
        #expect(Dump.reports(c).map { ($0["ts"] as! NSNumber).int64Value - t0 } == [0, 1000, 4000])
    }

    /// Chrome 144's format 3 writes no `ontrack` lines: the sender of a
    /// received track is named by the page's transceiver entries, as in the
    /// same browser's webrtc-internals dump (a public two-tab recording
    /// gave `remote-<ssrc>` in one file and the stream id in the other).
    @Test func format3NamesTheSenderFromItsTransceiverEntries() throws {
        let video = #""IV":{"type":"inbound-rtp","kind":"video","id":"IV","ssrc":7,"trackIdentifier":"tv","packetsReceived":10,"bytesReceived":10000,"framesDecoded":5}"#
        func transceiver(_ method: String, streams: String, _ delta: String) -> String {
            #"["\#(method)","8-1",{"mid":"1","kind":"video","sender":{"track":"mine","streams":["s-own"]},"receiver":{"track":"tv","streams":[\#(streams)]},"direction":"sendrecv"},\#(delta)]"#
        }
        let lines = [
            "RTCStatsDump",
            #"{"fileFormat":3}"#,
            #"["create","8-1",{},"https://meet.example.com/room/Retro/",\#(t0 - 1000)]"#,
            transceiver("transceiverAdded", streams: "", "0.5"),
            transceiver("transceiverModified", streams: #""3ed34b94-0a53""#, "0.5"),
            #"["onconnectionstatechange","8-1","\"connected\"",0.125]"#,
            #"["getStats","8-1",{\#(video)},998.875]"#,
        ]
        let c = try Dump.convert(lines.joined(separator: "\n"), .rtcstats, file: "/d/rtcstats_dump.txt")
        #expect(c.rejects.isEmpty, "\(c.rejects)")
        let subscribe = try #require(Dump.events(c).first { $0["event"] as? String == "stream_subscribe" })
        #expect(subscribe["publisher"] as? String == "3ed34b94-0a53", "\(subscribe)")
    }

    /// Format 3 as it goes wrong: a first timed line without an absolute
    /// time places nothing (refused whole, saying why, not 60 rejects of
    /// "before 2000"); a numbered method after the first line is one bad
    /// line, not rtcstats.com's variant; `ondatachannel` is a data channel.
    @Test func chromesFormat3WhenItGoesWrong() throws {
        let head = ["RTCStatsDump", #"{"fileFormat":3}"#]
        #expect { try Dump.convert((head + [#"["create","8-1",{},"https://x/r/",207.8]"#]).joined(separator: "\n"), .rtcstats) }
            throws: { "\($0)".contains("has no absolute time") }
        let lines = head + [
            #"["create","8-1",{},"https://x/r/",\#(t0)]"#,
            #"[7,"8-1",null,1]"#,
            #"["ondatachannel","8-1",{"label":"chat"},1]"#,
            #"["getStats","8-1",{"CP":{"type":"candidate-pair","currentRoundTripTime":0.01}},1000]"#,
        ]
        let c = try Dump.convert(lines.joined(separator: "\n"), .rtcstats)
        #expect(c.rejects.map(\.line) == [4], "\(c.rejects)")
        #expect(c.skipped.map(\.reason) == ["no media: never sent or received RTP (a data channel)"], "\(c.skipped)")

        // A line broken before its time was read: its trailing time still
        // counts, so the next sample is not early; without one, it says so.
        func leave(_ broken: String) throws -> (Int64, String) {
            let c = try Dump.convert((head + [
                #"["create","8-1",{},"https://x/r/",\#(t0)]"#,
                #"["getStats","8-1",{"IA":{"type":"inbound-rtp","kind":"audio","packetsReceived":10}},1000]"#,
                broken,
                #"["getStats","8-1",{"IA":{"type":"inbound-rtp","kind":"audio","packetsReceived":20}},1000]"#,
            ]).joined(separator: "\n"), .rtcstats)
            let last = Dump.reports(c).last.map { ($0["ts"] as! NSNumber).int64Value - t0 } ?? -1
            return (last, c.rejects.first?.reason ?? "")
        }
        let kept = try leave(#"["getStats","8-1",{"IA":{"type":"inbound-rtp" "x"}},1000]"#)
        #expect(kept.0 == 3000, "\(kept)")
        let lost = try leave(#"["getStats","8-1",{"IA":{"type":"inbound-rtp" "x"}},"1000"]"#)
        #expect(lost.0 == 2000 && lost.1.contains("its time is lost too"), "\(lost)")
    }

    /// The same in an rtcstats dump, where a sample repeats the far end's
    /// last report until a new one comes: a report whose own timestamp has
    /// not moved is no word back.
    @Test func aRepeatedFarEndReportIsNoWordBack() throws {
        func back(_ at: Int) -> (String, String) {
            ("RA", #""type":"remote-inbound-rtp","kind":"audio","fractionLost":0.02,"roundTripTime":0.05,"timestamp":\#(t0 + Int64(at))"#)
        }
        let c = try RTC.convert(RTC.header() + [
            RTC.stats("PC_0", 1000, [RTC.audioOut(50, bytes: 25_000), RTC.pair, back(900)]),
            RTC.stats("PC_0", 2000, [RTC.audioOut(100, bytes: 50_000), RTC.pair, back(1900)]),
            RTC.stats("PC_0", 3000, [RTC.audioOut(150, bytes: 75_000), RTC.pair, back(1900)]),
            RTC.stats("PC_0", 4000, [RTC.audioOut(200, bytes: 100_000), RTC.pair, back(1900)]),
            RTC.stats("PC_0", 5000, [RTC.audioOut(250, bytes: 125_000), RTC.pair, back(4900)]),
        ])
        #expect(Dump.reports(c).map { ($0["ts"] as! NSNumber).int64Value - t0 } == [1000, 2000, 5000])
    }

    /// The connection dropped and came back inside a 6 s sampling gap: the
    /// video found back in the sample after the gap came after the
    /// connection did, not at the gap's midpoint, 2 s before it.
    @Test func videoBackAfterADropComesAfterTheReturn() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 500)]
        let times: [Int64] = [1000, 2000, 3000, 9000, 10000]
        let packets = [10, 20, 20, 30, 40], frames = [5, 10, 10, 15, 20]
        for i in times.indices {
            if times[i] == 9000 { lines += [RTC.state("PC_0", "disconnected", 3500), RTC.state("PC_0", "connected", 8000)] }
            lines.append(RTC.stats("PC_0", times[i], [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: packets[i], frames: frames[i])]))
        }
        #expect(RTC.trace(try RTC.convert(lines)) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "stream_unsubscribe@2500:cam", "disconnect@3500", "reconnect@8000",
            "stream_subscribe@8000:cam", "receive_stream_status@8000:frame:cam", "meeting_leave@10000",
        ])
        var down = ConnectionMeta.Down()
        let log: [(String, Bool)] = [("connected", false), ("disconnected", true), ("disconnected", false), ("checking", true), ("connected", true), ("connected", false)]
        let back = log.enumerated().compactMap { down.note(ConnectionMeta.StateChange(ts: Int64($0.offset), state: $0.element.0, ice: $0.element.1)) }
        #expect(back == [4, 5], "each log's own return")
    }

    /// One direction blocked for 15 s: every inbound stream stopped at
    /// once, ICE called the connection disconnected 5.4 s later, and it
    /// came back. Read as a pause, the call was "nobody suffered"; it is
    /// the network: the video froze from the stop to the drop. Media that
    /// stops and a connection that then drops for good (a peer that left)
    /// stays a pause.
    @Test func aNetworkGoingDarkIsAStallNotAPause() throws {
        /// The pair in use heard nothing while dark (`heard`: a peer that
        /// muted everything still sends reports, which the pair counts).
        func run(comesBack: Bool, heard: Bool = false) throws -> [String] {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 500)]
            let packets = [10, 20, 30, 30, 30, 30, 40, 50], frames = [5, 10, 15, 15, 15, 15, 20, 25]
            for i in packets.indices {
                if i == 5 { lines.append(RTC.state("PC_0", "disconnected", 5400)) }
                if i == 6 && comesBack { lines.append(RTC.state("PC_0", "connected", 6800)) }
                let audio = RTC.audioIn(i < 3 ? 50 * (i + 1) : i < 6 ? 150 : 50 * (i - 2))
                let pairBytes = heard ? 1000 * (i + 1) : 1000 * (i < 3 ? i + 1 : i < 6 ? 3 : i - 2)
                let pair = ("CP", "\"type\":\"candidate-pair\",\"selected\":true,\"currentRoundTripTime\":0.05,\"bytesReceived\":\(pairBytes)")
                lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [audio, pair, RTC.video("V", track: "cam", packets: packets[i], frames: frames[i])]))
            }
            return RTC.trace(try RTC.convert(lines))
        }
        let back = try run(comesBack: true)
        #expect(back == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "receive_stream_status@3500:stall:cam", "stream_unsubscribe@5400:cam", "disconnect@5400", "reconnect@6800",
            "stream_subscribe@6800:cam", "receive_stream_status@6800:frame:cam", "meeting_leave@8000",
        ])
        // Audio flowing on: the sender paused its video, whatever came after.
        var paused = RTC.header() + [RTC.state("PC_0", "connected", 500)]
        let packets = [10, 20, 30, 30, 30, 30, 40, 50]
        for i in packets.indices {
            if i == 5 { paused += [RTC.state("PC_0", "disconnected", 5400), RTC.state("PC_0", "connected", 5600)] }
            paused.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: packets[i], frames: packets[i] / 2)]))
        }
        #expect(!RTC.trace(try RTC.convert(paused)).contains { $0.contains(":stall:") })
        #expect(!(try run(comesBack: false)).contains { $0.contains(":stall:") })
        // A peer that turned camera and microphone off while the network
        // blipped: its reports still came (the pair heard them): a pause.
        #expect(!(try run(comesBack: true, heard: true)).contains { $0.contains(":stall:") })
    }

    /// Packets came back, and frames only two samples later (the decoder
    /// waited for a key frame): the subscription is put at the end of its
    /// interval and the first frame at the start of its own, so both lie in
    /// their intervals and the delay claimed is the one the samples prove.
    @Test func aLateFirstFrameLiesInItsInterval() throws {
        var lines = RTC.header()
        let packets = [10, 20, 30, 40], frames = [0, 0, 0, 5]
        for i in packets.indices {
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: packets[i], frames: frames[i])]))
        }
        // Packets from 1000 (the first sample), frames in (3000, 4000].
        #expect(RTC.trace(try RTC.convert(lines)) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@3000:frame:cam", "meeting_leave@4000",
        ])
        var later = RTC.header()
        let p2 = [0, 10, 20, 30, 40], f2 = [0, 0, 0, 0, 5]
        for i in p2.indices {
            later.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: p2[i], frames: f2[i])]))
        }
        // Packets in (1000, 2000]: subscribed at 2000, not 1500; frames in (4000, 5000].
        #expect(RTC.trace(try RTC.convert(later)) == [
            "meeting_join@1000", "stream_subscribe@2000:cam", "receive_stream_status@4000:frame:cam", "meeting_leave@5000",
        ])
    }

    /// Three freezes counted in one interval, dated back by their summed
    /// duration, reached into the stall before: the second stall opened
    /// while the first was still open and was lost as its repeat (4 stalls,
    /// 2.5 s, of Chrome's 7 freezes, 3.5 s). It follows the first now.
    @Test func freezesDatedIntoTheStallBeforeFollowIt() throws {
        var lines = RTC.header()
        let freezes = [0, 0, 1, 3, 3], durations = ["0", "0", "0.4", "1.411", "1.411"]
        for i in freezes.indices {
            let extra = ",\"freezeCount\":\(freezes[i]),\"totalFreezesDuration\":\(durations[i])"
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: 10 * (i + 1), frames: 5 * (i + 1), extra: extra)]))
        }
        #expect(RTC.trace(try RTC.convert(lines)) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "receive_stream_status@2600:stall:cam", "receive_stream_status@3000:frame:cam",
            "receive_stream_status@3000:stall:cam", "receive_stream_status@4000:frame:cam",
            "meeting_leave@5000",
        ])
    }

    /// 3 s of total loss both ways, too short for ICE to call a drop:
    /// every stream and the pair went silent, and when packets came back
    /// the video's `packetsLost` jumped (at once, or a sample late): they
    /// were sent, so nobody paused; the video froze until it came back.
    /// A mute resumes with no such jump: a pause.
    @Test func aShortBlackoutWithLossIsAStall() throws {
        func run(lost: [Int]) throws -> [String] {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 500)]
            let packets = [10, 20, 30, 30, 30, 40, 50, 60], frames = [5, 10, 15, 15, 15, 20, 25, 30]
            let audio = [50, 100, 150, 150, 150, 200, 250, 300], pair = [1, 2, 3, 3, 3, 4, 5, 6]
            for i in packets.indices {
                let cp = ("CP", "\"type\":\"candidate-pair\",\"selected\":true,\"currentRoundTripTime\":0.05,\"bytesReceived\":\(pair[i] * 1000)")
                let video = RTC.video("V", track: "cam", packets: packets[i], frames: frames[i], extra: ",\"packetsLost\":\(lost[i])")
                lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(audio[i]), cp, video]))
            }
            return RTC.trace(try RTC.convert(lines))
        }
        let stall = [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "receive_stream_status@3500:stall:cam", "receive_stream_status@5500:frame:cam", "meeting_leave@8000",
        ]
        let atOnce = try run(lost: [0, 0, 0, 0, 0, 40, 40, 40])
        #expect(atOnce == stall, "\(atOnce)")
        let late = try run(lost: [0, 0, 0, 0, 0, 0, 40, 40])
        #expect(late == stall, "\(late)")
        #expect(try run(lost: [0, 0, 0, 0, 0, 2, 2, 2]) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "stream_unsubscribe@3500:cam", "stream_subscribe@5500:cam", "receive_stream_status@5500:frame:cam", "meeting_leave@8000",
        ])
    }

    /// The far end hung up (its DTLS close alert: the transport says
    /// `closed`), and this side's app kept the dead connection, which ICE
    /// then called disconnected and failed: the peer left, nobody
    /// suffered. Read as logged, the one who stayed was "suffered most:
    /// 1 abnormal disconnect".
    @Test func aPeerThatHungUpIsNoFailureOfTheOneWhoStayed() throws {
        func run(closed: Bool) throws -> [String] {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 500)]
            for i in 0..<4 {
                let transport = ("T", "\"type\":\"transport\",\"dtlsState\":\"\(closed && i == 3 ? "closed" : "connected")\"")
                lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(i < 3 ? 50 * (i + 1) : 150), transport]))
            }
            lines += [RTC.state("PC_0", "disconnected", 9000), RTC.state("PC_0", "failed", 19000)]
            return RTC.trace(try RTC.convert(lines))
        }
        #expect(try run(closed: true) == ["meeting_join@1000", "meeting_leave@4000"])
        #expect(try run(closed: false) == ["meeting_join@1000", "disconnect@9000", "disconnect@19000:connection_failed"])
    }

    /// A mesh: one connection per peer, both busy, sampled a millisecond
    /// apart as a browser does. Each second has exactly one report, from
    /// the connection that moved more in it; judged at the ends of their
    /// intervals, some seconds kept both (1 ms apart, one clean, one lossy)
    /// and some neither.
    @Test func aMeshKeepsOneReportASecond() throws {
        var lines = RTC.header()
        var bytes = [0, 0]
        for i in 0..<12 {
            for pc in 0..<2 {
                // The busier connection changes every second.
                bytes[pc] += (i + pc) % 2 == 0 ? 70_000 : 60_000
                lines.append(RTC.stats("PC_\(pc)", Int64(1000 * (i + 1) + pc), [
                    RTC.audioIn(50 * (i + 1), bytes: bytes[pc], lost: pc == 1 ? 5 * i : 0), RTC.audioOut(50 * (i + 1))]))
            }
        }
        let c = try RTC.convert(lines)
        let ts = Dump.reports(c).map { ($0["ts"] as! NSNumber).int64Value - t0 }
        // The first second of each connection has no interval to compare.
        let seconds = ts.filter { $0 > 2001 }.map { ($0 + 500) / 1000 }
        #expect(seconds == Array(3...12), "\(ts)")
    }
}
