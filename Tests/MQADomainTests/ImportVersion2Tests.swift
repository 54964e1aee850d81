import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Hand-written rtcstats lines for the version 2 rules: each test is one
/// pattern seen in real dumps (a probe, a failed or reconnecting
/// connection, a pause, a never-sent track, P2P, send-only, a named room).
enum RTC {
    static func line(_ method: String, _ pc: String?, _ value: String, _ at: Int64) -> String {
        let id = pc.map { "\"\($0)\"" } ?? "null"
        return "[\"\(method)\",\(id),\(value),\(t0 + at)]"
    }

    static func state(_ pc: String, _ state: String, _ at: Int64, ice: Bool = false) -> String {
        line(ice ? "oniceconnectionstatechange" : "onconnectionstatechange", pc, "\"\(state)\"", at)
    }

    /// A getstats line holding whole reports (`id: {json members}`).
    static func stats(_ pc: String, _ at: Int64, _ reports: [(String, String)]) -> String {
        let body = reports.map { "\"\($0.0)\":{\($0.1)}" }.joined(separator: ",")
        return line("getstats", pc, "{\"timestamp\":\(t0 + at),\(body)}", at)
    }

    static func audioIn(_ packets: Int, bytes: Int? = nil, lost: Int = 0) -> (String, String) {
        ("IA", "\"type\":\"inbound-rtp\",\"kind\":\"audio\",\"packetsReceived\":\(packets),\"packetsLost\":\(lost),\"bytesReceived\":\(bytes ?? packets * 100)")
    }

    static func audioOut(_ packets: Int, bytes: Int? = nil) -> (String, String) {
        ("OA", "\"type\":\"outbound-rtp\",\"kind\":\"audio\",\"packetsSent\":\(packets),\"bytesSent\":\(bytes ?? packets * 100)")
    }

    static func video(_ id: String, track: String, packets: Int, frames: Int, extra: String = "") -> (String, String) {
        (id, "\"type\":\"inbound-rtp\",\"kind\":\"video\",\"ssrc\":\(abs(id.hashValue % 9000) + 1000),\"trackIdentifier\":\"\(track)\",\"packetsReceived\":\(packets),\"framesDecoded\":\(frames),\"bytesReceived\":\(packets * 1000)\(extra)")
    }

    static let pair = ("CP", "\"type\":\"candidate-pair\",\"selected\":true,\"currentRoundTripTime\":0.05")
    static let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

    static func header(room: String = "Standup", user: String = "Ann") -> [String] {
        [
            line("connectionInfo", nil, "{\"url\":\"https://meet.example.com/\(room)?session=1\",\"userAgent\":\"\(chrome)\"}", 0),
            line("identity", nil, "{\"displayName\":\"\(user)\",\"endpointId\":\"e1\",\"confName\":\"other\"}", 0),
        ]
    }

    static func convert(_ lines: [String], file: String = "/d/ann.log") throws -> Conversion {
        try Dump.convert(lines.joined(separator: "\n"), .rtcstats, file: file)
    }

    /// `event@offset` with the detail that matters, quality reports left out.
    static func trace(_ c: Conversion) -> [String] {
        Dump.events(c).compactMap { e in
            let event = e["event"] as! String
            guard event != "quality_report" else { return nil }
            var s = "\(event)@\((e["ts"] as! NSNumber).int64Value - t0)"
            if let t = e["timedOut"] as? Bool { s += t ? ":stall" : ":frame" }
            if let track = e["track"] { s += ":\(track)" }
            if let error = e["error"] { s += ":\(error)" }
            return s
        }
    }
}

@Suite struct ImportVersion2Tests {
    /// A STUN-only probe that never connected is no person; the media
    /// connection's `failed` is an abnormal disconnect, not "nobody suffered".
    @Test func aProbeIsNoPersonAndAFailedConnectionIsAFailure() throws {
        let c = try RTC.convert(RTC.header() + [
            RTC.line("create", "PC_0", #"{"iceServers":[{"urls":"turn:relay.example:443"}]}"#, 10),
            RTC.line("constraints", "PC_0", #"{"optional":[{"rtcStatsSFUP2P":false}]}"#, 10),
            RTC.line("create", "PC_1", #"{"iceTransportPolicy":"all","iceServers":[{"urls":["stun:probe.example:443"]}]}"#, 11),
            RTC.state("PC_1", "connecting", 50), RTC.state("PC_0", "connecting", 60), RTC.state("PC_0", "connected", 100),
            RTC.stats("PC_0", 1000, [RTC.audioIn(50), RTC.audioOut(50), RTC.pair]),
            RTC.stats("PC_1", 1000, [("CP1", #""type":"candidate-pair","state":"in-progress""#)]),
            RTC.stats("PC_0", 2000, [RTC.audioIn(100), RTC.audioOut(100), RTC.pair]),
            RTC.state("PC_1", "failed", 2500), RTC.state("PC_0", "failed", 3000),
        ])
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@3000:connection_failed"])
        #expect(c.connections.map(\.connection) == ["PC_0"])
        #expect(c.skipped.map(\.connection) == ["PC_1"] && c.skipped[0].reason.contains("probe"), "\(c.skipped)")
        let join = Dump.events(c)[0]
        #expect(join["meeting"] as? String == "rtc-Standup" && join["uid"] as? String == "Ann")
        #expect(join["title"] as? String == "Standup" && join["engine"] as? String == "sfu")
        #expect(join["platform"] as? String == "windows" && join["osVersion"] as? String == "10.0" && join["device"] as? String == "Chrome 120")
        #expect(Set(Dump.events(c).map { $0["uid"] as! String }) == ["Ann"], "one dump, one person")
    }

    /// A drop ends every subscription (tiers.md); the tracks that come back
    /// with the connection are subscribed again at the reconnect, showing
    /// frames if they were, so a freeze after a blip is still a stall (a
    /// real Safari dump's 0.4 s drop ended both tiles for the last minute).
    /// A track stalled at the drop gets its first frame when frames resume.
    @Test func tracksAreSubscribedAgainAfterAReconnect() throws {
        /// A connected call sampled each second from 1 s to `last` s, its
        /// track "cam" at `frames(i)` decoded in sample i, dropped and back.
        func call(last: Int, frames: (Int) -> Int, drop: Int64, back: Int64) -> [String] {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
            for (i, at) in stride(from: 1000, through: last * 1000, by: 1000).enumerated() {
                lines.append(RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1)), RTC.pair,
                                                           RTC.video("V", track: "cam", packets: 100 * (i + 1), frames: frames(i))]))
            }
            return lines + [RTC.state("PC_0", "disconnected", drop), RTC.state("PC_0", "connected", back)]
        }
        // Frames stop growing after 6 s.
        let lines = call(last: 9, frames: { min($0 + 1, 6) * 30 }, drop: 3500, back: 4500)
        #expect(RTC.trace(try RTC.convert(lines)) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "disconnect@3500", "reconnect@4500", "stream_subscribe@4500:cam", "receive_stream_status@4500:frame:cam",
            "receive_stream_status@8000:stall:cam", "meeting_leave@9000",
        ])
        // Stalled when it dropped: subscribed again, its frame when frames resume.
        let stalled = call(last: 7, frames: { $0 < 2 ? ($0 + 1) * 30 : $0 < 5 ? 60 : ($0 - 2) * 30 }, drop: 4500, back: 5500)
        #expect(RTC.trace(try RTC.convert(stalled)) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "receive_stream_status@4000:stall:cam", "disconnect@4500", "reconnect@5500", "stream_subscribe@5500:cam",
            "receive_stream_status@6000:frame:cam", "meeting_leave@7000",
        ])
        // The stats end before the drop and the state log goes on: the
        // connection came back, but nothing says any video did.
        let unsampled = call(last: 3, frames: { ($0 + 1) * 30 }, drop: 4500, back: 5500)
        let trace = RTC.trace(try RTC.convert(unsampled))
        #expect(trace.contains("reconnect@5500") && !trace.contains("stream_subscribe@5500:cam"), "\(trace)")
    }

    /// A reconnect that falls on a sample keeps the sample's order
    /// (webrtc-import.md: the quality report first, then the track
    /// events): the reconnect, the report, then the tracks taken up again.
    /// They came before the report (a real Safari dump's return).
    @Test func aReconnectOnASampleKeepsTheReportFirst() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        for (i, at) in stride(from: 1000, through: 7000, by: 1000).enumerated() {
            lines.append(RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1)), RTC.pair,
                                                       RTC.video("V", track: "cam", packets: 100 * (i + 1), frames: 30 * (i + 1))]))
        }
        lines += [RTC.state("PC_0", "disconnected", 3500), RTC.state("PC_0", "connected", 5000)]
        let atReturn = Dump.events(try RTC.convert(lines)).filter { ($0["ts"] as! NSNumber).int64Value == t0 + 5000 }
        #expect(atReturn.map { $0["event"] as! String }
                == ["reconnect", "quality_report", "stream_subscribe", "receive_stream_status"], "\(atReturn)")
    }

    /// A track first subscribed while the person was away was never ended
    /// by the drop: the reconnect leaves it alone (it was subscribed twice).
    /// A recorded one-way outage: the viewer's connection dropped, and its
    /// tile froze 1.5 s later, while it was away. The disconnect ended the
    /// subscription; told, that freeze opened one of its own (no kind,
    /// a "first frame" at the return). The reconnect takes the track up.
    @Test func aFreezeWhileAwayIsNotTold() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 300), RTC.state("PC_0", "disconnected", 5500),
                                    RTC.state("PC_0", "connected", 9500)]
        let frames = [25, 50, 75, 100, 125, 125, 125, 125, 125, 150, 175, 200]
        for i in 1...12 {
            lines.append(RTC.stats("PC_0", Int64(1000 * i), [RTC.audioIn(50 * i), RTC.pair,
                                                             RTC.video("IV", track: "tv", packets: 40 * i, frames: frames[i - 1])]))
        }
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == [
            "meeting_join@1000", "stream_subscribe@1000:tv", "receive_stream_status@1000:frame:tv", "disconnect@5500",
            "reconnect@9500", "stream_subscribe@9500:tv", "receive_stream_status@10000:frame:tv", "meeting_leave@12000",
        ], "\(RTC.trace(c))")
    }

    /// Nothing of the tracks is told while the person is away: a track
    /// that came during the drop is subscribed at the return, once.
    @Test func aTrackFirstSeenDuringTheDropIsSubscribedAtTheReturn() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        for (i, at) in stride(from: 1000, through: 6000, by: 1000).enumerated() {
            var reports = [RTC.audioIn(50 * (i + 1)), RTC.pair, RTC.video("V", track: "cam", packets: 100 * (i + 1), frames: 30 * (i + 1))]
            if at >= 4000 { reports.append(RTC.video("W", track: "late", packets: 100 * (i - 2), frames: 30 * (i - 2))) }
            lines.append(RTC.stats("PC_0", Int64(at), reports))
        }
        lines += [RTC.state("PC_0", "disconnected", 3200), RTC.state("PC_0", "connected", 4500)]
        let trace = RTC.trace(try RTC.convert(lines))
        #expect(trace == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "disconnect@3200", "reconnect@4500", "stream_subscribe@4500:cam", "receive_stream_status@4500:frame:cam",
            "stream_subscribe@4500:late", "receive_stream_status@4500:frame:late", "meeting_leave@6000",
        ], "\(trace)")
    }

    @Test func disconnectedAndBackIsADropThenAReconnectAndCloseIsALeave() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        for (i, at) in [1000, 2000, 3000, 4000, 5000].enumerated() {
            lines.append(RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1)), RTC.pair]))
        }
        lines += [RTC.state("PC_0", "disconnected", 2500), RTC.state("PC_0", "connected", 4000),
                  RTC.line("close", "PC_0", "{}", 6000)]
        let c = try RTC.convert(lines)
        // The close comes after the last sample: the connection ends there.
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@2500", "reconnect@4000", "meeting_leave@6000"])
        let drop = Dump.events(c).first { $0["event"] as? String == "disconnect" }!
        #expect(drop["reason"] as? String == "network" && drop["error"] == nil)
    }

    /// A mesh participant has a connection per peer. One of them dropping
    /// leaves the person in the call; all of them down at once is the
    /// person's network gone: one disconnect when the last goes down, one
    /// reconnect when the first comes back (a recorded call, B's network
    /// cut for 12 s, told neither).
    @Test func everyMeshConnectionDownIsOneDisconnect() throws {
        func mesh(_ downs: [(String, Int64, Int64)], close: Int64? = nil, fail: Int64? = nil) throws -> [String] {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 100), RTC.state("PC_1", "connected", 100)]
            for (i, at) in stride(from: 1000, through: 9000, by: 1000).enumerated() {
                for pc in ["PC_0", "PC_1"] { lines.append(RTC.stats(pc, Int64(at), [RTC.audioIn(50 * (i + 1)), RTC.audioOut(50 * (i + 1))])) }
            }
            for (pc, from, to) in downs { lines += [RTC.state(pc, "disconnected", from), RTC.state(pc, "connected", to)] }
            if let close { lines.append(RTC.line("close", "PC_1", "{}", close)) }
            if let fail { lines.append(RTC.state("PC_1", "failed", fail)) }
            return RTC.trace(try RTC.convert(lines))
        }
        let stayed = ["meeting_join@1000", "meeting_leave@9000"]
        #expect(try mesh([("PC_0", 3000, 6000)]) == stayed)
        #expect(try mesh([("PC_0", 3000, 6000), ("PC_1", 3500, 5500)])
            == ["meeting_join@1000", "disconnect@3500", "reconnect@5500", "meeting_leave@9000"])
        // One drops as the other returns, in the same millisecond: never
        // both down (was a reconnect, then a disconnect, at 5000).
        #expect(try mesh([("PC_1", 3000, 5000), ("PC_0", 5000, 7000)]) == stayed)
        // Back at the first sample's time: no reconnect before the join.
        #expect(try mesh([("PC_1", 500, 1000)]) == stayed)
        // A drop logged before the first sample holds until its return.
        #expect(try mesh([("PC_1", 500, 6000), ("PC_0", 3000, 8000)])
            == ["meeting_join@1000", "disconnect@3000", "reconnect@6000", "meeting_leave@9000"])
        // The app closing one while the other is down: its peer left, the
        // person stays. Failing while the other is down: an abnormal drop.
        #expect(try mesh([("PC_0", 3000, 6000)], close: 4000) == stayed)
        #expect(try mesh([("PC_0", 3000, 6000)], fail: 4000)
            == ["meeting_join@1000", "disconnect@4000:connection_failed", "reconnect@6000", "meeting_leave@9000"])
    }

    /// `failed` is an abnormal disconnect with its error (the spec's
    /// outcomes) even when the connection comes back from it (an ICE
    /// restart): the return used to erase it, leaving no trace at all, or
    /// only the plain drop that came before it.
    @Test func aFailureComeBackFromIsStillAFailure() throws {
        func trace(_ states: [(String, Int64)]) throws -> [String] {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
            lines += stride(from: 1000, through: 9000, by: 1000).enumerated().map { i, at in
                RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))])
            }
            lines += states.map { RTC.state("PC_0", $0.0, $0.1) }
            return RTC.trace(try RTC.convert(lines))
        }
        #expect(try trace([("failed", 3000), ("connected", 5000)])
            == ["meeting_join@1000", "disconnect@3000:connection_failed", "reconnect@5000", "meeting_leave@9000"])
        #expect(try trace([("disconnected", 3000), ("failed", 4000), ("connected", 6000)])
            == ["meeting_join@1000", "disconnect@3000", "disconnect@4000:connection_failed", "reconnect@6000", "meeting_leave@9000"])
        // Never back: as before, the failure ends it.
        #expect(try trace([("disconnected", 3000), ("failed", 4000)])
            == ["meeting_join@1000", "disconnect@3000", "disconnect@4000:connection_failed"])
    }

    @Test func connectionStateWinsOverTheICEState() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100, ice: true), RTC.state("PC_0", "connected", 120)]
        lines += [1000, 2000, 3000].enumerated().map { i, at in RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        lines += [RTC.state("PC_0", "disconnected", 2500, ice: true), RTC.state("PC_0", "failed", 2600, ice: true)]
        // Only the ICE state changed: it is ignored when connectionState is logged.
        #expect(RTC.trace(try RTC.convert(lines)) == ["meeting_join@1000", "meeting_leave@3000"])
        // Without connection-state lines, ICE speaks: its failure is named as such.
        let iceOnly = lines.filter { !$0.contains("\"onconnectionstatechange\"") }
        #expect(RTC.trace(try RTC.convert(iceOnly)) == ["meeting_join@1000", "disconnect@2500", "disconnect@2600:ice_failed"])
    }

    /// One connection fails, the app opens another: the person left and came back.
    @Test func sequentialConnectionsAreALeaveAndAReconnect() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        lines += [1000, 2000, 3000].enumerated().map { i, at in RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        lines += [RTC.state("PC_0", "failed", 3500), RTC.state("PC_1", "connected", 5500)]
        lines += [6000, 7000, 8000].enumerated().map { i, at in RTC.stats("PC_1", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        lines.append(RTC.line("close", "PC_1", "{}", 9000))
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@3500:connection_failed", "reconnect@6000", "meeting_leave@9000"])
        #expect(c.connections.map(\.connection) == ["PC_0", "PC_1"])
    }

    /// A connection whose samples just stop, with no state or close line,
    /// followed by another: a drop and a return, not a leave.
    @Test func aConnectionThatStopsBeforeAnotherIsADrop() throws {
        var lines = RTC.header()
        lines += [1000, 2000, 3000].enumerated().map { i, at in RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        lines += [6000, 7000, 8000].enumerated().map { i, at in RTC.stats("PC_1", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        #expect(RTC.trace(try RTC.convert(lines)) == ["meeting_join@1000", "disconnect@3000", "reconnect@6000", "meeting_leave@8000"])
    }

    /// Back to `connected` after the last sample, then another
    /// connection: one drop and return, then the end as a drop, never two
    /// drops in a row.
    @Test func aReturnAtTheEndIsToldBeforeTheEnd() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        lines += [1000, 2000, 3000].enumerated().map { i, at in RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        lines += [RTC.state("PC_0", "disconnected", 3500), RTC.state("PC_0", "connected", 4000)]
        #expect(RTC.trace(try RTC.convert(lines)) == ["meeting_join@1000", "disconnect@3500", "reconnect@4000", "meeting_leave@4000"])
        lines += [6000, 7000, 8000].enumerated().map { i, at in RTC.stats("PC_1", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        #expect(RTC.trace(try RTC.convert(lines))
                == ["meeting_join@1000", "disconnect@3500", "reconnect@4000", "disconnect@4000", "reconnect@6000", "meeting_leave@8000"])
    }

    /// A `disconnected` logged after the last sample is the end of the
    /// connection, at its own time: a drop, with no leave after it.
    @Test func aDropAfterTheLastSampleIsADisconnect() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        lines += [1000, 2000, 3000].enumerated().map { i, at in RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        lines.append(RTC.state("PC_0", "disconnected", 6000))
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@6000"])
        let drop = try #require(Dump.events(c).first { $0["event"] as? String == "disconnect" })
        #expect(drop["reason"] as? String == "network" && drop["error"] == nil)
        // Dropped while the samples went on: told once, at the drop.
        var during = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        during += [1000, 2000, 3000].enumerated().map { i, at in RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * (i + 1))]) }
        during.insert(RTC.state("PC_0", "disconnected", 1500), at: during.count - 1)
        #expect(RTC.trace(try RTC.convert(during)) == ["meeting_join@1000", "disconnect@1500"])
    }

    /// A media connection stuck in `connecting` (no `failed`, no
    /// `connected`) never started the call either.
    @Test func aConnectionStuckConnectingIsASetupFailure() throws {
        let c = try RTC.convert(RTC.header() + [
            RTC.line("addTrack", "PC_0", #""audio""#, 20),
            RTC.state("PC_0", "connecting", 100), RTC.state("PC_0", "checking", 110, ice: true),
            RTC.stats("PC_0", 1000, [RTC.audioIn(0)]),
            RTC.stats("PC_0", 2000, [RTC.audioIn(0)]),
            RTC.state("PC_0", "connecting", 2500),
        ])
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@2500:setup_failed"])
        #expect(c.connections.map(\.connection) == ["PC_0"] && c.skipped.isEmpty)
    }

    /// Jitsi's bridge connection stays up while a P2P one carries the call:
    /// one person, whose feed follows the busier connection; the P2P one's
    /// end is no leave, and the engine is that of the busier connection.
    @Test func overlappingConnectionsAreOnePersonFollowingTheBusiestFeed() throws {
        var lines = RTC.header() + [
            RTC.line("constraints", "PC_0", #"{"optional":[{"rtcStatsSFUP2P":false}]}"#, 10),
            RTC.line("constraints", "PC_1", #"{"optional":[{"rtcStatsSFUP2P":true}]}"#, 20),
            RTC.line("ontrack", "PC_1", #""video:p2p-cam stream:bob1234-video-0-1""#, 20),
        ]
        for (i, at) in stride(from: 1000, through: 10000, by: 1000).enumerated() {
            lines.append(RTC.stats("PC_0", Int64(at), [RTC.audioIn(10 * (i + 1), bytes: 1250 * (i + 1))]))  // 10 kbps
        }
        for (i, at) in stride(from: 3000, through: 7000, by: 1000).enumerated() {
            lines.append(RTC.stats("PC_1", Int64(at) + 100, [
                RTC.audioIn(50 * (i + 1), bytes: 100_000 * (i + 1)),  // 800 kbps
                RTC.video("V", track: "p2p-cam", packets: 90 * (i + 1), frames: 30 * (i + 1)),
            ]))
        }
        lines.append(RTC.line("close", "PC_1", "{}", 7500))
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == [
            "meeting_join@1000", "stream_subscribe@3100:p2p-cam", "receive_stream_status@3100:frame:p2p-cam",
            "stream_unsubscribe@7500:p2p-cam", "meeting_leave@10000",
        ])
        let reports = Dump.reports(c).map { (($0["ts"] as! NSNumber).int64Value - t0, ($0["bitrate"] as! NSNumber).intValue) }
        // PC_1's first sample has no interval: the bridge still speaks at 3000 and 3100 is PC_1's (rate 0 vs 0 after).
        #expect(reports.filter { $0.0 > 3100 && $0.0 <= 7100 }.allSatisfy { $0.1 > 10 }, "P2P carries the feed: \(reports)")
        #expect(reports.filter { $0.0 > 7500 }.allSatisfy { $0.1 == 10 }, "the bridge again: \(reports)")
        #expect(Dump.events(c)[0]["engine"] as? String == "p2p")
        let sub = Dump.events(c).first { $0["event"] as? String == "stream_subscribe" }!
        #expect(sub["publisher"] as? String == "bob1234", "Jitsi's <endpoint>-video-N names the sender")
    }

    /// Packets that stop are a pause (the sender muted, the SFU stopped
    /// forwarding): the subscription ends, no stall; frames that stop while
    /// packets still arrive are a freeze.
    @Test func aPauseIsNotAFreeze() throws {
        let packets = [10, 20, 30, 30, 30, 30, 40, 50, 60, 70, 80]
        let frames = [3, 6, 9, 9, 9, 9, 12, 15, 15, 15, 18]
        var lines = RTC.header()
        for i in packets.indices {
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: packets[i], frames: frames[i])]))
        }
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "stream_unsubscribe@3500:cam",  // packets stopped in (3000, 4000]
            "stream_subscribe@6500:cam", "receive_stream_status@6500:frame:cam",  // back in (6000, 7000]
            "receive_stream_status@10000:stall:cam", "receive_stream_status@11000:frame:cam",
            "meeting_leave@11000",
        ])
    }

    /// "Within one sample: the quality report first, then unsubscribes,
    /// then per track its subscribe and status": a pause ends its track's
    /// subscription before another track that comes back subscribes.
    @Test func aPauseUnsubscribesBeforeAnotherTrackSubscribes() throws {
        let a = [10, 20, 20, 30, 40], b = [10, 20, 30, 30, 40]
        var lines = RTC.header()
        for i in a.indices {
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [
                RTC.audioIn(50 * (i + 1)), RTC.video("VA", track: "a", packets: a[i], frames: a[i]),
                RTC.video("VB", track: "b", packets: b[i], frames: b[i]),
            ]))
        }
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == [
            "meeting_join@1000", "stream_subscribe@1000:a", "receive_stream_status@1000:frame:a",
            "stream_subscribe@1000:b", "receive_stream_status@1000:frame:b",
            "stream_unsubscribe@2500:a",
            "stream_unsubscribe@3500:b",  // b pauses in the sample where a comes back
            "stream_subscribe@3500:a", "receive_stream_status@3500:frame:a",
            "stream_subscribe@4500:b", "receive_stream_status@4500:frame:b",
            "meeting_leave@5000",
        ])
    }

    /// Where the browser counts freezes, its counters date them; frames that
    /// merely pause between samples are not a freeze then.
    @Test func freezeCountersDateTheFreeze() throws {
        var lines = RTC.header()
        let freezes = [0, 0, 0, 0, 1, 1]
        let duration = ["0", "0", "0", "0", "1.5", "1.5"]
        let frames = [5, 10, 10, 10, 20, 25]  // a flat stretch the counters do not call a freeze
        for i in freezes.indices {
            let extra = ",\"freezeCount\":\(freezes[i]),\"totalFreezesDuration\":\(duration[i])"
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: 10 * (i + 1), frames: frames[i], extra: extra)]))
        }
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == [
            "meeting_join@1000", "stream_subscribe@1000:cam", "receive_stream_status@1000:frame:cam",
            "receive_stream_status@3500:stall:cam", "receive_stream_status@5000:frame:cam",  // 1.5 s ending by 5000
            "meeting_leave@6000",
        ])
    }

    /// Jitsi's placeholder track never receives a packet: it was never
    /// sent, so there is no subscription (and no "never rendered").
    @Test func aTrackThatNeverReceivedAPacketIsNoSubscription() throws {
        var lines = RTC.header()
        for i in 0..<4 {
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V0", track: "mixedlabelvideo0", packets: 0, frames: 0)]))
        }
        // Packets in one interval only and no frame: below what the samples can tell.
        lines.append(RTC.stats("PC_0", 5000, [RTC.audioIn(250), RTC.video("V0", track: "mixedlabelvideo0", packets: 5, frames: 0)]))
        // Then padding: packets without payload bytes (the SFU probing bandwidth).
        for i in 0..<4 {
            let padding = ("V0", #""type":"inbound-rtp","kind":"video","trackIdentifier":"mixedlabelvideo0","packetsReceived":\#(10 + 40 * i),"bytesReceived":5000,"framesDecoded":0"#)
            lines.append(RTC.stats("PC_0", Int64(6000 + 1000 * i), [RTC.audioIn(300 + 50 * i), padding]))
        }
        let c = try RTC.convert(lines)
        #expect(RTC.trace(c) == ["meeting_join@1000", "meeting_leave@9000"])
    }

    @Test func firstFramesAreTimedToTheirInterval() throws {
        var lines = RTC.header()
        let frames = [0, 0, 0, 4]
        for i in frames.indices {
            lines.append(RTC.stats("PC_0", Int64(2000 * (i + 1)), [RTC.audioIn(50 * (i + 1)), RTC.video("V", track: "cam", packets: 10 * (i + 1), frames: frames[i])]))
        }
        let c = try RTC.convert(lines)
        // Packets from the first sample (at 2000, no interval before it); frames first
        // in (6000, 8000]: 4 s after the subscription's sample at least, and
        // only what the samples prove is claimed (not the midpoint's 5 s).
        #expect(RTC.trace(c) == ["meeting_join@2000", "stream_subscribe@2000:cam", "receive_stream_status@6000:frame:cam", "meeting_leave@8000"])
    }

    /// An interval that only sent is reported from the far end's view;
    /// one with no RTP either way makes no report.
    @Test func sendOnlyIntervalsAreReportedFromTheSendersSide() throws {
        let remote = [
            ("RA", #""type":"remote-inbound-rtp","kind":"audio","fractionLost":0.02,"jitter":0.0125,"roundTripTime":0.05"#),
            ("RV", #""type":"remote-inbound-rtp","kind":"video","fractionLost":0.0405,"jitter":0.2,"roundTripTime":0.07"#),
        ]
        let c = try RTC.convert(RTC.header() + [
            RTC.stats("PC_0", 1000, [RTC.audioOut(0, bytes: 0)] + remote),
            RTC.stats("PC_0", 2000, [RTC.audioOut(50, bytes: 25_000)] + remote),
            RTC.stats("PC_0", 3000, [RTC.audioOut(50, bytes: 25_000)] + remote),
            RTC.stats("PC_0", 4000, [RTC.audioOut(100, bytes: 50_000)] + remote),
        ])
        let reports = Dump.reports(c)
        #expect(reports.map { ($0["ts"] as! NSNumber).int64Value - t0 } == [2000, 4000], "nothing moved at 1000 and 3000")
        let r = reports[0]
        // loss = 100 · mean(0.02, 0.0405) = 3.025 → 3.03; jitter: the audio one, 12.5 → 13 ms;
        // bitrate 25000 B · 8 / 1000 ms = 200 kbps; rtt: mean of the remote RTTs, 60 ms.
        #expect((r["loss"] as! NSNumber).doubleValue == 3.03)
        #expect((r["jitter"] as! NSNumber).intValue == 13)
        #expect((r["bitrate"] as! NSNumber).intValue == 200)
        #expect((r["rtt"] as! NSNumber).intValue == 60)
        // A send-only P2P connection without a constraints line is still not a feed of several streams.
        #expect(Dump.events(c)[0]["engine"] as? String == "sfu")
    }

    /// No browser repeats a report id within one getstats object; when a
    /// dump does, the two members merge (the later wins per property) and
    /// that report is the one the sample and the next delta build on.
    @Test func aReportIdTwiceInOneSampleMerges() throws {
        let c = try RTC.convert(RTC.header() + [
            RTC.stats("PC_0", 1000, [RTC.audioIn(0), RTC.pair]),
            RTC.stats("PC_0", 2000, [("IA", #""packetsReceived":50"#), ("IA", #""bytesReceived":40000"#), RTC.pair]),
            RTC.stats("PC_0", 3000, [("IA", #""packetsReceived":100"#), RTC.pair]),
        ])
        let bitrates = Dump.reports(c).map { ($0["bitrate"] as! NSNumber).intValue }
        // 2000: 40,000 B in 1 s = 320 kbps (both members counted); 3000: no more bytes.
        #expect(bitrates == [320, 0], "\(bitrates)")
    }

    /// The media connection never came up: the call never started.
    @Test func aConnectionThatNeverConnectedIsASetupFailure() throws {
        let c = try RTC.convert(RTC.header() + [
            RTC.line("create", "PC_0", #"{"iceServers":[{"urls":"turns:relay.example:443"}]}"#, 10),
            RTC.line("ontrack", "PC_0", #""audio:a1 stream:s1""#, 20),
            RTC.state("PC_0", "connecting", 100),
            RTC.stats("PC_0", 1000, [("CP", #""type":"candidate-pair","state":"in-progress""#)]),
            RTC.stats("PC_0", 2000, [("CP", #""type":"candidate-pair","state":"in-progress""#)]),
            RTC.state("PC_0", "failed", 15000),
        ])
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@15000:setup_failed"])
        #expect(Dump.reports(c).isEmpty, "no RTP: no quality report, never a perfect score")
    }

    /// A broadcast whose ICE never left `new` logs no state change at all;
    /// sampled for 15 s with nothing sent, it is still a call that never
    /// started (a real mediasoup dump: outbound-rtp only, 0 bytes), not
    /// nothing. A connection neither sampled nor logging a state tells
    /// nothing and stays skipped.
    @Test func aSampledConnectionThatNeverLoggedAStateIsASetupFailure() throws {
        let c = try RTC.convert(RTC.header() + [
            RTC.line("addTrack", "PC_0", #""audio""#, 20),
            RTC.stats("PC_0", 1000, [RTC.audioOut(0, bytes: 0)]),
            RTC.stats("PC_0", 16000, [RTC.audioOut(0, bytes: 0)]),
        ])
        #expect(RTC.trace(c) == ["meeting_join@1000", "disconnect@16000:setup_failed"])
        #expect(Dump.reports(c).isEmpty)
        let silent = try RTC.convert(RTC.header() + [RTC.line("addTrack", "PC_0", #""audio""#, 20)])
        #expect(RTC.trace(silent).isEmpty)
        // Legacy goog* samples cannot tell whether media flowed: skipped, as before.
        let legacy = try RTC.convert(RTC.header() + [
            RTC.line("addTrack", "PC_0", #""audio""#, 20),
            RTC.stats("PC_0", 1000, [("S", #""type":"ssrc","googRtt":"5""#)]),
            RTC.stats("PC_0", 2000, [("S", #""type":"ssrc","googRtt":"6""#)]),
        ])
        #expect(RTC.trace(legacy).isEmpty && legacy.skipped.first?.reason.contains("legacy") == true)
    }

    /// Without a constraints line: one audio and one video stream each way
    /// is a direct call; several streams of a kind come through an SFU.
    @Test func engineWithoutAConstraintsLine() throws {
        func dump(videos: Int) throws -> String? {
            var lines = RTC.header()
            for i in 0..<3 {
                var reports = [RTC.audioIn(50 * (i + 1)), RTC.audioOut(50 * (i + 1))]
                for v in 0..<videos { reports.append(RTC.video("V\(v)", track: "t\(v)", packets: 10 * (i + 1), frames: 3 * (i + 1))) }
                lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), reports))
            }
            return Dump.events(try RTC.convert(lines))[0]["engine"] as? String
        }
        #expect(try dump(videos: 1) == "p2p")
        #expect(try dump(videos: 3) == "sfu")
    }

    /// A two-person SFU call sends and receives one stream of each kind,
    /// as a direct call does; its remote description tells them apart: a
    /// server runs ICE lite, and offers slots for more senders than one
    /// peer has (real Google Meet and Teams dumps read `p2p` before).
    /// Chrome names a new track on the same inbound report when the sender
    /// swaps its track: one tile handed on at the midpoint, where the next
    /// subscription begins (a real Meet dump showed two overlapping tiles).
    @Test func aTrackHandedOnToAnotherEndsWhereTheNextBegins() throws {
        var lines = RTC.header()
        for i in 0..<5 {
            let track = i < 2 ? "a" : "b"
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [
                RTC.audioIn(50 * (i + 1)), RTC.audioOut(50 * (i + 1)),
                RTC.video("IV", track: track, packets: 10 * (i + 1), frames: 3 * (i + 1))]))
        }
        let trace = RTC.trace(try RTC.convert(lines)).filter { $0.hasPrefix("stream_") }
        #expect(trace == ["stream_subscribe@1000:a", "stream_unsubscribe@2500:a", "stream_subscribe@2500:b"], "\(trace)")
    }

    @Test func theRemoteDescriptionTellsAnSFU() throws {
        func engine(_ sdp: String?, videos: Int = 1) throws -> String? {
            var lines = RTC.header()
            if let sdp {
                let text = String(data: try JSONSerialization.data(withJSONObject: ["type": "answer", "sdp": sdp]), encoding: .utf8)!
                lines.append(RTC.line("setRemoteDescription", "PC_0", text, 500))
            }
            for i in 0..<3 {
                let reports = [RTC.audioIn(50 * (i + 1)), RTC.audioOut(50 * (i + 1))]
                    + (0..<videos).map { RTC.video("V\($0)", track: "t\($0)", packets: 10 * (i + 1), frames: 3 * (i + 1)) }
                lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), reports))
            }
            return Dump.events(try RTC.convert(lines))[0]["engine"] as? String
        }
        let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        let peer = head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\n"
        #expect(try engine(nil) == "p2p")
        #expect(try engine(peer) == "p2p")
        #expect(try engine(peer + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:2\r\n") == "p2p", "a camera and a screen")
        // A peer that added its screen sends two video streams (a recorded
        // Chromium call read as an SFU's); without its description, two
        // video streams may be two people's.
        #expect(try engine(peer + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:2\r\n", videos: 2) == "p2p")
        #expect(try engine(nil, videos: 2) == "sfu")
        #expect(try engine(peer + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:2\r\n", videos: 3) == "sfu")
        #expect(try engine(head + "a=ice-lite\r\n" + peer.dropFirst(head.count)) == "sfu")
        #expect(try engine(peer + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:2\r\n") == "sfu", "two audio slots")
        let facts = try #require(SessionDescriptionFacts(logged: "type: answer, sdp: " + peer))
        #expect(facts.audioSections == 1 && facts.videoSections == 1 && !facts.iceLite)
        // Sections a removed track left (inactive, or rejected with port 0)
        // are no senders: a renegotiated P2P call stays p2p.
        #expect(try engine(peer + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:2\r\na=inactive\r\n") == "p2p")
        #expect(try engine(peer + "m=audio 0 UDP/TLS/RTP/SAVPF 111\r\na=mid:2\r\n") == "p2p")
        // Chrome 142 on logs the description as JSON, escapes and all.
        let json = String(data: try JSONSerialization.data(withJSONObject: ["type": "answer", "sdp": head + "a=ice-lite\r\n" + peer.dropFirst(head.count)]), encoding: .utf8)!
        #expect(SessionDescriptionFacts(logged: json)?.iceLite == true)
    }

    @Test func identityFallbacksAndUserAgents() throws {
        // No identity line: the file names the person; no URL: the file names the meeting.
        let bare = try RTC.convert([RTC.stats("PC_0", 1000, [RTC.audioIn(5)])], file: "/x/client-7.log.gz")
        let e = Dump.events(bare)[0]
        #expect(e["uid"] as? String == "client-7" && e["meeting"] as? String == "rtc-client-7" && e["title"] == nil)
        // userId wins over displayName; confName names the room when the URL has no path.
        let named = try RTC.convert([
            RTC.line("connectionInfo", nil, #"{"url":"https://meet.example.com/","userAgent":"x"}"#, 0),
            RTC.line("identity", nil, #"{"userId":"u-42","displayName":"Ann","confName":"Weekly"}"#, 0),
            RTC.stats("PC_0", 1000, [RTC.audioIn(5)]),
        ])
        #expect(Dump.events(named)[0]["uid"] as? String == "u-42" && Dump.events(named)[0]["meeting"] as? String == "rtc-Weekly")
        let mac = UserAgentClient("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15")
        #expect(mac == UserAgentClient(platform: "macos", osVersion: "10.15.7", device: "Safari 17"))
        let fox = UserAgentClient("Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:109.0) Gecko/20100101 Firefox/118.0")
        #expect(fox.device == "Firefox 118" && fox.osVersion == "10.15")
        let phone = UserAgentClient("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0 Mobile/15E148 Safari/604.1")
        #expect(phone == UserAgentClient(platform: "ios", osVersion: "17.4", device: "Chrome 124"))
        let android = UserAgentClient("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/1")
        #expect(android.platform == "android" && android.osVersion == "14" && android.device == "Edge 1")
        let edgeOnIOS = UserAgentClient("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/124.2478.71 Mobile/15E148 Safari/605.1.15")
        #expect(edgeOnIOS == UserAgentClient(platform: "ios", osVersion: "17.4", device: "Edge 124"))
        #expect(DumpIdentity.lastPathSegment("https://meet.jit.si//Big%20Room?x=1#y") == "Big Room")
        #expect(DumpIdentity.lastPathSegment("https://meet.jit.si") == nil)
        // A page that takes its room as a parameter names it there: each
        // call its own meeting, not every call "call.html".
        #expect(DumpIdentity.room(inURL: "http://10.0.0.1:8080/call.html?room=uplink&me=A&peers=B,C") == "uplink")
        #expect(DumpIdentity.room(inURL: "https://x.example/app/?me=A&Room_Name=Big+Room%21#top") == "Big Room!")
        #expect(DumpIdentity.room(inURL: "https://x.example/join?meetingId=84512&pwd=x") == "84512")
        #expect(DumpIdentity.room(inURL: "https://x.example/call.html?room=&me=A") == "call.html", "an empty value names nothing")
        #expect(DumpIdentity.room(inURL: "https://meet.jit.si/Standup?lang=de#config.x=1") == "Standup")
        #expect(DumpIdentity.room(inURL: "https://x.example/c#room=frag") == "c", "the fragment is no query")
        #expect(DumpIdentity.room(inURL: "https://x.example/#/call?room=hashroom") == nil, "nor a query inside it")
        #expect(DumpIdentity.room(inURL: "https://x.example/rooms/standup?channel=stable&conf=x.json") == "standup",
                "loose names are no room")
        #expect(DumpIdentity.room(inURL: "https://x.example/call.html?meetingId=42&room=abc") == "abc", "the strongest name wins")
        #expect(DumpIdentity.room(inURL: "https://x.example/c?room=a%0Ab") == "a%0Ab", "no control character in an id")
        #expect(DumpIdentity.room(inURL: "https://x.example/a%00b") == "a%00b")
    }

    /// Concealed audio is what was made up while packets were missing:
    /// not the silence played for a quiet sender (`silentConcealedSamples`),
    /// nor an SFU's idle audio slot that never received a packet (a clean
    /// Google Meet call read 86 %, its audible share 0.38 %).
    @Test func concealmentCountsWhatWasHeard() throws {
        var lines = RTC.header()
        for i in 0..<4 {
            let live = ("IA", #""type":"inbound-rtp","kind":"audio","packetsReceived":\#(50 * (i + 1)),"bytesReceived":\#(5000 * (i + 1)),"concealedSamples":\#(500 * i),"silentConcealedSamples":\#(480 * i),"totalSamplesReceived":\#(1000 * i)"#)
            let idle = ("IB", #""type":"inbound-rtp","kind":"audio","packetsReceived":0,"bytesReceived":0,"concealedSamples":\#(1000 * i),"silentConcealedSamples":\#(1000 * i),"totalSamplesReceived":\#(1000 * i)"#)
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [live, idle, RTC.audioOut(10 * (i + 1)), RTC.pair]))
        }
        let c = try RTC.convert(lines)
        #expect(c.contexts.first?.concealment == 60.0 / 3000.0, "\(c.contexts)")
    }

    /// A sender's limit holds for the intervals it was there for: a video
    /// stream that starts in the third sample, limited from its first,
    /// counts one interval, not the one before it existed (a public
    /// recording read 17 s where Chrome's own durations say 16.1 s).
    @Test func aLimitCountsFromTheSendersSecondSample() throws {
        var lines = RTC.header()
        for i in 0..<4 {
            let video = i < 2 ? [] : [("OV", #""type":"outbound-rtp","kind":"video","packetsSent":\#(10 * i),"bytesSent":\#(9000 * i),"qualityLimitationReason":"bandwidth""#)]
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [RTC.audioOut(10 * (i + 1)), RTC.pair] + video))
        }
        let c = try RTC.convert(lines)
        #expect(c.contexts.first?.limitedMs == ["bandwidth": 1000], "\(c.contexts)")
    }

    /// Standard stats add context beside the figures: the path the
    /// selected pair took, why outgoing video was held back, concealed audio.
    @Test func contextFromStandardStats() throws {
        var lines = RTC.header()
        let reasons = ["none", "bandwidth", "cpu", "cpu"]
        for i in 0..<4 {
            let audio = ("IA", #""type":"inbound-rtp","kind":"audio","packetsReceived":\#(50 * (i + 1)),"bytesReceived":\#(5000 * (i + 1)),"concealedSamples":\#(10 * i),"totalSamplesReceived":\#(1000 * i)"#)
            let layers = ["OV1", "OV2"].map { ($0, #""type":"outbound-rtp","kind":"video","packetsSent":\#(10 * (i + 1)),"bytesSent":\#(9000 * (i + 1)),"qualityLimitationReason":"\#(reasons[i])""#) }
            let pair = ("CP", #""type":"candidate-pair","selected":true,"currentRoundTripTime":0.05,"localCandidateId":"L\#(i < 2 ? 1 : 2)""#)
            let locals = [("L1", #""type":"local-candidate","candidateType":"relay","protocol":"udp","relayProtocol":"tls""#),
                          ("L2", #""type":"local-candidate","candidateType":"srflx","protocol":"udp""#)]
            lines.append(RTC.stats("PC_0", Int64(1000 * (i + 1)), [audio, pair] + layers + locals))
        }
        let c = try RTC.convert(lines)
        #expect(c.contexts.count == 1)
        let x = c.contexts[0]
        #expect(x.paths == ["relay/tls", "srflx/udp"], "the relay's own transport names a TURN path")
        // Per interval once, not per simulcast layer.
        #expect(x.limitedMs == ["bandwidth": 1000, "cpu": 2000])
        #expect(x.concealment == 30.0 / 3000.0)
        // Context never changes the figures.
        #expect(Dump.reports(c).allSatisfy { ($0["rtt"] as! NSNumber).intValue == 50 })

        // Ingested, the store keeps it for the meeting report, keyed by the participant.
        let scratch = Scratch()
        let path = scratch.write("ann.log", lines)
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [path])
        let stored = try store.connectionContexts(meeting: "rtc-Standup")
        #expect(stored.keys.sorted() == ["Ann"])
        #expect(stored["Ann"]?.map(\.paths) == [["relay/tls", "srflx/udp"]])
        #expect(stored["Ann"]?.first?.limitedMs == ["bandwidth": 1000, "cpu": 2000])
        #expect(stored["Ann"]?.first?.concealment == 0.01)
        // Ingested again (a changed dump), the row is replaced, not doubled.
        _ = try Ingester(store: store).ingest(paths: [scratch.write("ann.log", lines + [RTC.stats("PC_0", 5000, [RTC.pair])])])
        #expect(try store.connectionContexts(meeting: "rtc-Standup")["Ann"]?.count == 1)

        // Exported, the context is one line of mqa's own after Ann's first;
        // ingested into an empty store, it is the same store (and counted
        // with the ignored lines, as other pipelines count it).
        let export = try exportText(store)
        let contextLines = export.split(separator: "\n").filter { $0.contains("\"event\":\"mqa_connection_context\"") }
        #expect(contextLines.count == 1 && export.split(separator: "\n")[1].contains("mqa_connection_context"))
        let copy = try EventStore(path: scratch.dir + "/copy.sqlite")
        let summary = try Ingester(store: copy).ingest(paths: [scratch.write("export.ndjson", [String(export.dropLast())])])
        #expect(summary.ignored == 1 && summary.rejected == 0)
        #expect(try copy.connectionContexts(meeting: "rtc-Standup") == store.connectionContexts(meeting: "rtc-Standup"))
        #expect(try exportText(copy) == export)

        // Such a line alone (no event of its client before it) or with a bad
        // field is rejected, naming why; it makes no meeting of nothing.
        let line = String(contextLines[0])
        let alone = line.replacingOccurrences(of: "\"meeting\":\"rtc-Standup\"", with: "\"meeting\":\"ghost\"")
        let badLimit = line.replacingOccurrences(of: "\"limitedMs\":{", with: "\"limitedMs\":{\"gpu\":5,")
        let badConcealment = line.replacingOccurrences(of: "\"concealment\":0.01", with: "\"concealment\":true")
        let other = try EventStore(path: scratch.dir + "/other.sqlite")
        let ingester = Ingester(store: other)
        var told: [String] = []
        ingester.onReject = { told.append($0.reason) }
        let rejected = try ingester.ingest(paths: [scratch.write("bad.ndjson", [alone, badLimit, badConcealment])])
        #expect(rejected.rejected == 3 && rejected.ignored == 0)
        #expect(try other.meetings().isEmpty)
        // Before its client's events, even in one batch, it is alone too.
        let early = try EventStore(path: scratch.dir + "/early.sqlite")
        let others = export.split(separator: "\n").map(String.init).filter { !$0.contains("mqa_connection_context") }
        let first = try Ingester(store: early).ingest(paths: [scratch.write("early.ndjson", [line] + others)])
        #expect(first.rejected == 1 && first.ignored == 0)
        #expect(try early.connectionContexts(meeting: "rtc-Standup").isEmpty)
        #expect(told == [
            "mqa_connection_context: no event of this meeting and uid before it",
            "mqa_connection_context: limitedMs: unknown reason 'gpu' (one of cpu, bandwidth, other)",
            "mqa_connection_context: concealment: must be a number from 0 to 1, or null",
        ], "\(told)")
    }

    /// webrtc-internals says the same things in its own words: the page URL,
    /// the user agent, the constraints text and the update log.
    @Test func webrtcInternalsStatesURLAndUserAgent() throws {
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 1000, 2000]), props: [
            ("kind", Dump.strings(["audio", "audio", "audio"])), ("packetsReceived", ["10", "20", "30"])])
        var text = Dump.internals([("5-1", [a])])
        let log = #""updateLog":[{"time":"\#(t0 + 10)","type":"connectionstatechange","value":"connected"},{"time":"\#(t0 + 2500)","type":"connectionstatechange","value":"failed"}],"constraints":"{optional: [{rtcStatsSFUP2P: true}]}","#
        text = text.replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro",\#(log)"#)
        text = text.replacingOccurrences(of: #""UserAgent":"test""#, with: #""UserAgent":"\#(RTC.chrome)""#)
        let c = try Dump.convert(text, .webrtcInternals, file: "/d/webrtc_internals_dump.txt")
        #expect(RTC.trace(c) == ["meeting_join@0", "disconnect@2500:connection_failed"])
        let join = Dump.events(c)[0]
        #expect(join["meeting"] as? String == "rtc-Retro" && join["engine"] as? String == "p2p" && join["device"] as? String == "Chrome 120")
        #expect(join["uid"] as? String == "webrtc_internals_dump")
    }

    /// "A remote track's publisher is the remote participant where the dump
    /// tells (the stream id …)": the page logs each transceiver's receiver
    /// track and streams, as Chrome writes them.
    @Test func webrtcInternalsTransceiversNameThePublishers() throws {
        let v = Dump.Report(id: "IV", type: "inbound-rtp", times: Dump.times([0, 1000, 2000]), props: [
            ("kind", Dump.strings(["video", "video", "video"])), ("trackIdentifier", Dump.strings(["tv-p", "tv-p", "tv-p"])),
            ("ssrc", ["2", "2", "2"]), ("packetsReceived", ["10", "20", "30"]), ("bytesReceived", ["1000", "2000", "3000"]),
            ("framesDecoded", ["1", "2", "3"])])
        let text = Dump.internals([("5-1", [v])])
        let transceiver = #"Caused by: setRemoteDescription\n\ngetTransceivers()[1]:{\n  mid:'1',\n  kind:'video',\n  sender:{\n    track:null,\n    streams:[],\n  },\n  receiver:{\n    track:'tv-p',\n    streams:['abcd1234-video-0-1'],\n  },\n  direction:'recvonly',\n  currentDirection:null,\n}"#
        let log = #""updateLog":[{"time":"\#(t0 - 50)","type":"transceiverAdded","value":"\#(transceiver)"}],"#
        let withLog = text.replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro",\#(log)"#)
        let c = try Dump.convert(withLog, .webrtcInternals, file: "/d/webrtc_internals_dump.txt")
        let subscribe = try #require(Dump.events(c).first { $0["event"] as? String == "stream_subscribe" })
        #expect(subscribe["publisher"] as? String == "abcd1234" && subscribe["track"] as? String == "tv-p")
        #expect(WebRTCInternalsImporter.receiverTrackAndStream("receiver:{\n track:'x',\n streams:[],\n}") == nil)
        // Chrome now writes the transceiver as JSON.
        let json = #"{"mid":"0","kind":"video","sender":{"track":null,"streams":[]},"receiver":{"track":"e2a","streams":["go2rtc"]},"direction":"recvonly"}"#
        #expect(WebRTCInternalsImporter.receiverTrackAndStream(json).map { [$0.0, $0.1] } == ["e2a", "go2rtc"])
        #expect(WebRTCInternalsImporter.receiverTrackAndStream(#"{"receiver":{"track":"e2a","streams":[]}}"#) == nil)
    }

    /// The page's `close` entry is the app's call, not a connection state:
    /// a log of ICE states and a close keeps its ICE states.
    @Test func webrtcInternalsCloseKeepsTheICEStates() throws {
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 1000, 2000]), props: [
            ("kind", Dump.strings(["audio", "audio", "audio"])), ("packetsReceived", ["10", "20", "30"])])
        let text = Dump.internals([("5-1", [a])])
        func entry(_ at: Int64, _ type: String, _ value: String) -> String {
            #"{"time":"\#(t0 + at)","type":"\#(type)","value":"\#(value)"}"#
        }
        let states = [entry(-500, "iceconnectionstatechange", "connected"), entry(3500, "iceconnectionstatechange", "disconnected"),
                      entry(8000, "iceconnectionstatechange", "failed")]
        for close in [false, true] {
            let log = #""updateLog":["# + (states + (close ? [entry(9000, "close", "")] : [])).joined(separator: ",") + "],"
            let withLog = text.replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro",\#(log)"#)
            let c = try Dump.convert(withLog, .webrtcInternals, file: "/d/webrtc_internals_dump.txt")
            #expect(RTC.trace(c) == ["meeting_join@0", "disconnect@3500", "disconnect@8000:ice_failed"], "close: \(close)")
        }
    }
}

/// Chrome before 144 wrote the page's log times as locale text with no
/// zone; the dump tells its offset where its samples saw the media begin
/// after `connected` (a real Google Meet dump's LAN → LTE drop was lost).
@Suite struct LocaleLogTimeTests {
    /// 2026-11-29T10:00:00Z plus `at` ms as the wall clock of `offset`
    /// hours, in `format`.
    func local(_ at: Int64, offset: Int64, _ format: (Int, Int, Int, Int, Int, Int) -> String) -> String {
        let ms = t0 + at + offset * 3_600_000
        let days = ms / 86_400_000
        let (y, m, d) = Time.civil(fromDays: days)
        let s = Int((ms % 86_400_000) / 1000)
        return format(Int(y), Int(m), Int(d), s / 3600, s / 60 % 60, s % 60)
    }

    static func us(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> String {
        String(format: "%d/%d/%d, %d:%02d:%02d %@", m, d, y, h % 12 == 0 ? 12 : h % 12, mi, s, h < 12 ? "AM" : "PM")
    }

    static func de(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> String {
        String(format: "%d.%d.%d, %02d:%02d:%02d", d, m, y, h, mi, s)
    }

    /// Samples each second, audio from the third on (the media begins
    /// after `connected`, or already flows at the first when `flowing`),
    /// and a log of connected, a 1 s drop and connected again.
    func dump(offset: Int64, flowing: Bool = false, with more: [Dump.Report] = [],
              _ format: (Int, Int, Int, Int, Int, Int) -> String) -> String {
        let packets = flowing ? ["5", "8", "10", "20", "30", "40", "50"] : ["0", "0", "10", "20", "30", "40", "50"]
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 1000, 2000, 3000, 4000, 5000, 6000]), props: [
            ("kind", Dump.strings(Array(repeating: "audio", count: 7))), ("packetsReceived", packets)])
        let text = Dump.internals([("5-1", [a] + more)])
        func entry(_ at: Int64, _ state: String) -> String {
            #"{"time":"\#(local(at, offset: offset, format))","type":"iceconnectionstatechange","value":"\#(state)"}"#
        }
        let log = #""updateLog":["# + [entry(1000, "connected"), entry(3000, "disconnected"), entry(4000, "connected")]
            .joined(separator: ",") + "],"
        return text.replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro",\#(log)"#)
    }

    @Test func aDropLoggedInLocaleTimeIsPlaced() throws {
        for (offset, format) in [(Int64(-7), Self.us), (1, Self.de), (-3, Self.us), (5, Self.de)] {
            let c = try Dump.convert(dump(offset: offset, format), .webrtcInternals, file: "/d/webrtc_internals_dump.txt")
            #expect(RTC.trace(c) == ["meeting_join@0", "disconnect@3000", "reconnect@4000", "meeting_leave@6000"], "offset \(offset)")
        }
        // Media already flowing at the first sample: nothing tells the
        // offset, and the log keeps only its order, as before.
        let c = try Dump.convert(dump(offset: -7, flowing: true, Self.us), .webrtcInternals, file: "/d/webrtc_internals_dump.txt")
        #expect(!RTC.trace(c).contains("disconnect@3000"), "\(RTC.trace(c))")
    }

    /// The first sample must come within seconds of the connection coming
    /// up: a pair that has received 900 STUN responses has been connected
    /// a quarter hour (a page opened late in a lobby fits a wrong quarter
    /// hour as well as the right one), and places nothing; 2 does.
    @Test func onlyAFreshFirstSampleTellsTheOffset() throws {
        for (responses, placed) in [(2, true), (900, false)] {
            let pair = Dump.Report(id: "CP", type: "candidate-pair", times: Dump.times([0, 1000, 2000, 3000, 4000, 5000, 6000]), props: [
                ("state", Dump.strings(Array(repeating: "succeeded", count: 7))),
                ("responsesReceived", (0..<7).map { String(responses + $0) })])
            let text = dump(offset: -7, with: [pair], Self.us)
            let trace = RTC.trace(try Dump.convert(text, .webrtcInternals, file: "/d/webrtc_internals_dump.txt"))
            #expect(trace.contains("disconnect@3000") == placed, "\(responses): \(trace)")
        }
    }

    /// A clock change inside the call: a text on its other side from the
    /// anchor would read an hour off, and stays unplaced. Berlin falls
    /// back at 2026-10-25T01:00Z; the call runs 00:30Z to 02:00Z.
    @Test func aTextPastAClockChangeStaysUnplaced() throws {
        let start: Int64 = 1_792_888_200_000  // 2026-10-25T00:30:00Z, 02:30 CEST
        let times = [0.0, 1000, 2000, 3000, 5_400_000, 5_401_000, 5_402_000]
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: times.map { String(format: "%.3f", Double(start) + $0) }, props: [
            ("kind", Dump.strings(Array(repeating: "audio", count: 7))), ("packetsReceived", ["0", "0", "10", "20", "30", "40", "50"])])
        let text = Dump.internals([("5-1", [a])])
        // Berlin's clock: +2 until 01:00Z, +1 after. 1 s in, connected;
        // 1 h 30 m in (past the change) a drop and a return.
        func de(_ at: Int64) -> String { self.local(at + start - t0, offset: at < 1_800_000 ? 2 : 1, Self.de) }
        let entries: [(Int64, String)] = [(1000, "connected"), (5_400_500, "disconnected"), (5_401_500, "connected")]
        let log = #""updateLog":["# + entries.map {
            #"{"time":"\#(de($0.0))","type":"iceconnectionstatechange","value":"\#($0.1)"}"#
        }.joined(separator: ",") + "],"
        let withLog = text.replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro",\#(log)"#)
        let trace = RTC.trace(try Dump.convert(withLog, .webrtcInternals, file: "/d/webrtc_internals_dump.txt"))
        #expect(!trace.contains { $0.hasPrefix("disconnect") }, "\(trace)")
    }

    @Test func localeTextsReadAsWallClocks() throws {
        func wall(_ text: String) -> [Int64] { LocaleLogTime.wallClock(Array(text.utf8))?.map(\.ms) ?? [] }
        let pm = Int64(RFC3339.daysFromCivil(year: 2025, month: 4, day: 14)) * 86_400_000 + (13 * 3600 + 22 * 60 + 54) * 1000
        #expect(wall("4/14/2025, 1:22:54 PM") == [pm])
        #expect(wall("4/14/2025, 1:22:54\u{202F}PM") == [pm])
        #expect(wall("14/04/2025, 13:22:54") == [pm])
        #expect(wall("14.4.2025, 13:22:54") == [pm])
        #expect(wall("2025/4/14 13:22:54") == [pm])
        #expect(wall("2025. 4. 14. 오후 1:22:54") == [pm])
        #expect(wall("4/14/2025, 12:22:54 AM") == [pm - 13 * 3_600_000])
        #expect(wall("14/4/2025, 1:22:54\u{202F}p.\u{00A0}m.") == [pm], "es-MX")
        #expect(wall("14/4/2025, 1:22:54 μ.μ.") == [pm], "Greek")
        // April 5 or May 4: both readings, the dump's anchor picks one;
        // May 5 is the same either way, and both orders keep it.
        #expect(wall("4/5/2025, 13:00:00").count == 2)
        #expect(Set(LocaleLogTime.wallClock(Array("5.5.2025, 13:00:00".utf8))!.map(\.order)) == [.monthDayYear, .dayMonthYear])
        // A 12-hour marker not known (Albanian "e pasdites") could be
        // either half of the day: not read at all.
        for bad in ["", "yesterday", "4/14/2025", "13/14/2025, 1:00:00", "4/14/2025, 13:22:54 PM", "4/14/25, 1:22:54 PM",
                    "14.4.2025, 1:22:54 e pasdites", "١٤/٤/٢٠٢٥"] {
            #expect(LocaleLogTime.wallClock(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    /// Wrong times are worse than none: a media start a quarter hour after
    /// `connected` (a lobby) passes the rounding to 15 minutes, so the
    /// first log entry must lead the first sample too, and a time that
    /// falls outside its connection's samples stays unplaced.
    @Test func anUnsureOffsetPlacesNothing() throws {
        // `connected` logged 15 minutes before the media began: with the
        // log's first entry at the first sample, nothing fits.
        func lobby(_ at: Int64) -> String { self.local(at, offset: -7, Self.us) }
        let a = Dump.Report(id: "IA", type: "inbound-rtp", times: Dump.times([0, 900_000, 901_000, 902_000, 903_000]), props: [
            ("kind", Dump.strings(Array(repeating: "audio", count: 5))), ("packetsReceived", ["0", "0", "10", "20", "30"])])
        let text = Dump.internals([("5-1", [a])])
        let log = #""updateLog":[{"time":"\#(lobby(0))","type":"createOffer","value":""},"#
            + #"{"time":"\#(lobby(1000))","type":"iceconnectionstatechange","value":"connected"},"#
            + #"{"time":"\#(lobby(901_500))","type":"iceconnectionstatechange","value":"disconnected"},"#
            + #"{"time":"\#(lobby(902_000))","type":"iceconnectionstatechange","value":"connected"}],"#
        let dump = text.replacingOccurrences(of: #"{"url":"https://x","#, with: #"{"url":"https://meet.example.com/Retro",\#(log)"#)
        let c = try Dump.convert(dump, .webrtcInternals, file: "/d/webrtc_internals_dump.txt")
        // Placed 15 minutes off, the 0.5 s drop would be a disconnect after
        // the samples end; unplaced, the log only says it ended connected.
        #expect(RTC.trace(c) == ["meeting_join@0", "meeting_leave@903000"], "\(RTC.trace(c))")
    }

}

/// Version 2 keeps version 1's quality-report formulas to the bit: on a
/// single-connection dump every report it makes carries version 1's
/// numbers (recorded from the version 1 importer, `Fixtures/…v1-reports.json`);
/// it only leaves out the interval in which no RTP moved.
@Suite struct ImportVersion1NumbersTests {
    @Test func aSingleConnectionDumpKeepsVersion1Numbers() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let dump = try String(contentsOf: dir.appendingPathComponent("rtcstats-single-connection.log"), encoding: .utf8)
        let v1 = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("rtcstats-single-connection.v1-reports.json"))) as! [[NSNumber]]
        let c = try Dump.convert(dump, .rtcstats, file: "single.log")
        let v2 = Dump.reports(c).map { r in ["ts", "loss", "rtt", "jitter", "bitrate"].map { r[$0] as! NSNumber } }
        #expect(v1.count == 15 && v2.count == 14)
        #expect(v2 == Array(v1.dropLast()), "v1's last interval moved no RTP (v1 reported 0 kbps there)")
        #expect(v1.last!.dropFirst().allSatisfy { $0.doubleValue == 0 })
    }
}

extension ImportVersion2Tests {
    /// "Sample by sample in time order": a sample not later than the one
    /// before it is left out and named as a reject (an earlier one read as
    /// counters going back: a restart, 0 kbps and the whole call's loss in
    /// one interval; a repeated line as an interval of 0 ms in which nothing
    /// flowed: a pause). The next interval holds what it measured.
    @Test func aSampleNotLaterThanTheLastIsLeftOut() throws {
        func sample(_ k: Int) -> String {
            RTC.stats("PC_0", Int64(k) * 1000, [RTC.audioIn(50 * k, lost: 2 * k), RTC.audioOut(50 * k), RTC.pair,
                                                RTC.video("IV", track: "cam", packets: 90 * k, frames: 30 * k)])
        }
        let head = RTC.header() + [RTC.state("PC_0", "connected", 500)]
        let tidy = try RTC.convert(head + (1...8).map(sample))
        let messy = try RTC.convert(head + [1, 2, 4, 3, 5, 5, 6, 8, 7].map(sample))
        #expect(tidy.rejects.isEmpty && Dump.reports(tidy).count == 8)
        let reports = Dump.reports(messy)
        #expect(reports.map { ($0["ts"] as! NSNumber).int64Value - t0 } == [1000, 2000, 4000, 5000, 6000, 8000])
        // Every interval has the same rates as the tidy dump's.
        for key in ["loss", "bitrate"] {
            let values = Set(reports.dropFirst().map { ($0[key] as! NSNumber).doubleValue })
            let tidyValues = Set(Dump.reports(tidy).dropFirst().map { ($0[key] as! NSNumber).doubleValue })
            #expect(values == tidyValues && values.count == 1, "\(key): \(values) vs \(tidyValues)")
        }
        #expect(!RTC.trace(messy).contains { $0.hasPrefix("stream_unsubscribe") }, "\(RTC.trace(messy))")
        #expect(messy.rejects.map(\.line) == [7, 9, 12])
        #expect(messy.rejects[0].reason.hasPrefix("a getstats sample of PC_0 at \(t0 + 3000), earlier than the one before it (\(t0 + 4000))"))
        #expect(messy.rejects[1].reason.hasPrefix("a second getstats sample of PC_0 at \(t0 + 5000): left out"))
    }
}

/// A sample time no event could have (0, the year 2100) is no time: as the
/// clock every later sample was held to, one bad rtcstats sample lost the
/// rest of the dump; at the head of a webrtc-internals series it made the
/// join and first subscription events at 0, which the ingest then rejected.
@Suite struct SampleTimeRangeTests {
    @Test func aFarFutureRtcstatsSampleIsRejectedAlone() throws {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        for (i, at) in stride(from: 1000, through: 6000, by: 1000).enumerated() {
            let stamp = at == 3000 ? Int64(4_102_444_800_000) - t0 : Int64(at)  // 2100-01-01
            lines.append(RTC.stats("PC_0", stamp, [RTC.audioIn(50 * (i + 1))]))
        }
        let c = try RTC.convert(lines)
        #expect(c.rejects.map(\.reason) == ["getstats: time 4102444800000 out of range (before 2000-01-01 or more than a day in the future)"])
        #expect(Dump.reports(c).count == 5, "every other sample is kept")
    }

    @Test func anOutOfRangeInternalsTimeIsLeftOutAndTold() throws {
        let times = ["0"] + (1...5).map { String(t0 + Int64($0) * 1000) }
        let text = Dump.internals([("PC_0", [
            Dump.Report(id: "IA", type: "inbound-rtp", times: times,
                        props: [("kind", times.map { _ in "\"audio\"" }), ("packetsReceived", (0...5).map { String(50 * $0 + 50) }),
                                ("bytesReceived", (0...5).map { String(5000 * $0 + 5000) })]),
        ])])
        let c = try Dump.convert(text, .webrtcInternals)
        #expect(c.rejects.map(\.reason) == ["PC_0: 1 stats time out of range (0; before 2000-01-01 or more than a day in the future): its values left out"])
        let events = Dump.events(c)
        #expect(events.allSatisfy { ($0["ts"] as! NSNumber).int64Value >= t0 + 1000 })
        #expect(events.first?["event"] as? String == "meeting_join")
    }
}

/// A counter beyond what the exact numbers hold (1e300 packets) is a huge
/// value, as 2^64 is, not a missing one: read as missing, its interval had
/// no packets and made no report.
@Suite struct AbsurdCounterTests {
    @Test func aHugeCounterIsHugeNotMissing() throws {
        func reports(_ huge: String) throws -> [Int64] {
            let times = (0..<6).map { String(t0 + Int64($0) * 1000) }
            var packets = (0..<6).map { String(100 + 100 * $0) }
            packets[3] = huge
            let text = Dump.internals([("PC_0", [
                Dump.Report(id: "IA", type: "inbound-rtp", times: times,
                            props: [("kind", times.map { _ in "\"audio\"" }), ("packetsReceived", packets),
                                    ("bytesReceived", (0..<6).map { String(10_000 * $0) })]),
            ])])
            return Dump.reports(try Dump.convert(text, .webrtcInternals)).map { ($0["bitrate"] as! NSNumber).int64Value }
        }
        // The sample after went back from it: a restart, counted from zero (40,000 bytes: 320 kbps).
        #expect(try reports("1e300") == reports("18446744073709551616"))
        // A page that quoted its numbers: read as the numbers (bitrate 0 before).
        func quoted(_ quote: Bool) throws -> [Int64] {
            let q = quote ? "\"" : ""
            let times = (0..<4).map { String(t0 + Int64($0) * 1000) }
            let text = Dump.internals([("PC_0", [
                Dump.Report(id: "IA", type: "inbound-rtp", times: times,
                            props: [("kind", times.map { _ in "\"audio\"" }), ("packetsReceived", (0..<4).map { q + String(100 * $0 + 100) + q }),
                                    ("bytesReceived", (0..<4).map { q + String(10_000 * $0) + q })]),
            ])])
            return Dump.reports(try Dump.convert(text, .webrtcInternals)).map { ($0["bitrate"] as! NSNumber).int64Value }
        }
        #expect(try quoted(true) == quoted(false) && quoted(false) == [0, 80, 80, 80])
        let got = try reports("1e300")
        #expect(got == [0, 80, 80, 80, 320, 80], "\(got)")
    }
}
