import Foundation
import Testing

@testable import MQARecorder
import MQABase
import MQAModel

/// Every call, with ordinary and hostile values, writes lines that the
/// pipeline's own validator accepts, with the fields the format names.
@Suite struct ValidityTests {
    /// Calls every typed method once; `s` is the text used for every string.
    static func recordAll(_ r: MeetingRecorder, _ s: String, numbers: (Double, Double, Double, Double, Double)) {
        r.deviceChanged(kind: .camera, change: .added, device: s)
        r.deviceChanged(kind: .speaker, change: .default)
        r.meetingJoined(engine: .sfu, title: s)
        r.meetingJoined(engine: .cdn)
        r.qualityReport(loss: numbers.0, rtt: numbers.1, jitter: numbers.2, bitrate: numbers.3, mos: numbers.4)
        r.connectionQualityChanged(tier: s)
        r.activeSpeakersChanged([s, "bob"])
        r.activeSpeakersChanged([])
        r.streamSubscribed(publisher: s, track: s, kind: .camera)
        r.streamSubscribed(publisher: "bob", track: "bob-screen", kind: .screen)
        r.receiveStreamStatus(publisher: s, track: s, timedOut: true)
        r.receiveStreamStatus(publisher: s, track: s, timedOut: false)
        r.streamUnsubscribed(publisher: s, track: s)
        r.userEntered(s)
        r.userLeft(s)
        r.memberMediaState(target: s, media: .mic, on: false, byAdmin: true, opUid: s)
        r.memberMediaState(target: s, media: .camera, on: true, byAdmin: false)
        r.roomTitleChanged(to: s, from: s)
        r.roomShareStarted(publisher: s)
        r.roomShareStopped(publisher: s)
        r.audioRouteChanged(route: s, reason: s)
        r.audioInterruption(.began)
        r.audioInterruption(.ended)
        r.userHandup(.request)
        r.userHandup(.confirmOpen)
        r.shareBroadcastStarted()
        r.shareBroadcastStopped()
        r.disconnected(reason: s, error: s)
        r.disconnected(reason: "network")
        r.reconnected()
        r.meetingLeft()
    }

    static let hostile = [
        "plain", "", "quote \" backslash \\ slash /", "new\nline\r\ttab\u{0}nul\u{1F}us\u{7F}del",
        "émoji 👩🏽‍💻 and CJK 会议", "\u{2028}\u{2029}\u{FEFF}", String(repeating: "x", count: 5000),
        String(repeating: "é", count: 300),
    ]

    static let numberCases: [(Double, Double, Double, Double, Double)] = [
        (0, 0, 0, 0, 0), (0.004, 48, 6, 1850, 4.31), (0.075, 210.5, 38, 640, 3.02), (1, 1e15, 1e9, 1e20, 5),
        (-0.5, -1, -2, -3, -4), (7, 10, 10, 10, 0.5), (.nan, .nan, .nan, .nan, .nan),
        (.infinity, .infinity, -.infinity, .infinity, .infinity), (0.0700000001, 0.0004, 0.0005, 1e-9, 4.999),
    ]

    /// Payload uids are uids (1–256 characters): an empty speaker or
    /// `opUid` is left out, a call whose publisher or target is empty is
    /// ignored (the clock not read), a long one is cut to 256.
    @Test func payloadUidsAreWrittenAsUids() throws {
        let dir = TempDir()
        let r = try recorder(dir, clock: StepClock(start: 1_795_946_400_000))
        r.activeSpeakersChanged(["", "bob", ""])
        r.memberMediaState(target: "bob", media: .mic, on: false, byAdmin: true, opUid: "")
        r.streamSubscribed(publisher: "", track: "t", kind: .camera)
        r.userEntered("")
        r.roomShareStarted(publisher: String(repeating: "é", count: 300))
        r.close()
        let all = lines(in: dir)
        #expect(all.map(\.text) == [
            #"{"ts":1795946400000,"event":"active_speakers_change","meeting":"m-42","uid":"alice","speakers":["bob"]}"#,
            #"{"ts":1795946400001,"event":"member_media_state","meeting":"m-42","uid":"alice","target":"bob","media":"mic","on":false,"byAdmin":true}"#,
            #"{"ts":1795946400002,"event":"room_share_start","meeting":"m-42","uid":"alice","publisher":""# + String(repeating: "é", count: 256) + #""}"#,
        ])
        #expect(all.allSatisfy { $0.outcome == .event })
    }

    @Test func everyLinePassesTheValidator() throws {
        let dir = TempDir()
        let r = try recorder(dir)
        for (i, s) in Self.hostile.enumerated() {
            Self.recordAll(r, s, numbers: Self.numberCases[i % Self.numberCases.count])
        }
        for n in Self.numberCases { r.qualityReport(loss: n.0, rtt: n.1, jitter: n.2, bitrate: n.3, mos: n.4) }
        r.close()
        let all = lines(in: dir)
        // With "" as publisher or target, 10 calls name no one and are
        // ignored (the format rejects an empty uid): stream events (4),
        // members (4 with the media states) and room shares (2).
        #expect(all.count == Self.hostile.count * 31 + Self.numberCases.count - 10)
        for line in all {
            let kind = try #require(RecorderEvent.allCases.first { $0.name == line.event }, "\(line.text)")
            if EventKind(name: line.event) != nil {
                #expect(line.outcome == .event, "\(line.text)")
            } else {
                // Context events while this build's validator predates 1.1.
                #expect(line.outcome == .event || line.outcome == .ignored, "\(line.text)")
            }
            let keys = Set(line.json.keys).subtracting(["ts", "event", "meeting", "uid"])
            #expect(keys.isSuperset(of: kind.requiredFields), "\(line.text)")
            #expect(keys.isSubset(of: kind.requiredFields + kind.optionalFields), "\(line.text)")
            for key in keys { #expect(Self.typeIsRight(key, line.json[key]!, line.text), "\(key) in \(line.text)") }
            #expect(line.text.utf8.count < 64 << 10)
        }
    }

    /// The spec's type of each payload key (booleans told apart from
    /// numbers by the text, as Foundation reads both as NSNumber).
    static func typeIsRight(_ key: String, _ value: Any, _ text: String) -> Bool {
        let isBool = text.contains("\"\(key)\":true") || text.contains("\"\(key)\":false")
        switch key {
        case "timedOut", "on", "byAdmin": return isBool
        case "speakers": return value is [String]
        case "mos": return value is NSNull || (value is NSNumber && !isBool)
        case "loss", "rtt", "jitter", "bitrate", "dropped", "totalDropped": return value is NSNumber && !isBool
        default: return value is String
        }
    }

    @Test func recorderNamesAreThePipelinesNames() {
        for kind in EventKind.allCases {
            #expect(RecorderEvent.allCases.contains { $0.name == kind.name }, "\(kind.name) has no recorder call")
        }
        let context = [
            "audio_route_change", "audio_interruption", "device_change", "sub_meeting_move", "user_handup",
            "share_broadcast_start", "share_broadcast_stop",
        ]
        let names = Set(RecorderEvent.allCases.map(\.name))
        #expect(names == Set(EventKind.allCases.map(\.name) + context + ["recorder_dropped"]))
    }

    @Test func sdkValuesAreConvertedAndClamped() throws {
        let dir = TempDir()
        let r = try recorder(dir)
        r.qualityReport(loss: 0.075, rtt: 48, jitter: 6, bitrate: 1850, mos: 4.31)
        r.qualityReport(loss: 0.07, rtt: 0, jitter: 0, bitrate: 0, mos: 0)  // 0.07·100 is 7.000000000000001 in binary
        r.qualityReport(loss: 2, rtt: -5, jitter: .nan, bitrate: 1e20, mos: 5.5)
        r.close()
        let texts = lines(in: dir).map(\.text)
        #expect(texts.count == 3)
        #expect(texts[0].hasSuffix(#""loss":7.5,"rtt":48,"jitter":6,"bitrate":1850,"mos":4.31}"#))
        #expect(texts[1].hasSuffix(#""loss":7,"rtt":0,"jitter":0,"bitrate":0,"mos":null}"#))
        #expect(texts[2].hasSuffix(#""loss":100,"rtt":0,"jitter":0,"bitrate":1000000000000,"mos":null}"#))

        let dir2 = TempDir()
        let r2 = try recorder(dir2) { $0.lossUnit = .percent }
        r2.qualityReport(loss: 7.5, rtt: 1, jitter: 2, bitrate: 3, mos: 1)
        r2.close()
        #expect(lines(in: dir2).first?.text.contains(#""loss":7.5,"#) == true)
    }

    @Test func theSpecExampleComesOutAsInTheSpec() throws {
        let dir = TempDir()
        let clock = StepClock(start: 1_795_946_400_000)
        let r = try recorder(dir, clock: clock)
        r.meetingJoined(engine: .sfu, title: "Weekly sync")
        r.streamSubscribed(publisher: "bob", track: "bob-cam", kind: .camera)
        r.receiveStreamStatus(publisher: "bob", track: "bob-cam", timedOut: false)
        r.connectionQualityChanged(tier: "poor")
        r.close()
        #expect(
            lines(in: dir).map(\.text) == [
                #"{"ts":1795946400000,"event":"meeting_join","meeting":"m-42","uid":"alice","engine":"sfu","title":"Weekly sync"}"#,
                #"{"ts":1795946400001,"event":"stream_subscribe","meeting":"m-42","uid":"alice","publisher":"bob","track":"bob-cam","kind":"camera"}"#,
                #"{"ts":1795946400002,"event":"receive_stream_status","meeting":"m-42","uid":"alice","publisher":"bob","track":"bob-cam","timedOut":false}"#,
                #"{"ts":1795946400003,"event":"connection_quality_change","meeting":"m-42","uid":"alice","tier":"poor"}"#,
            ])
        #expect(dir.names == ["m-42__alice__1795946400000.ndjson"])
    }

    @Test func longIdsAreCutToTheFormatsLimit() throws {
        let dir = TempDir()
        let long = String(repeating: "会", count: 300)
        let r = try recorder(dir, meeting: long, uid: long + "x")
        r.userEntered("bob")
        r.subMeetingMoved(to: long + "y")
        r.userEntered("carol")
        r.close()
        let all = lines(in: dir)
        #expect(all.count == 3)
        for line in all { #expect((line.json["meeting"] as? String)?.count == 256) }
        #expect(dir.names.allSatisfy { $0.utf8.count < 255 })
    }

    @Test func emptyIdsAreRefused() {
        let dir = TempDir()
        #expect(throws: MeetingRecorder.SetupError.emptyIdentifier) { try recorder(dir, meeting: "") }
        #expect(throws: MeetingRecorder.SetupError.emptyIdentifier) { try recorder(dir, uid: "") }
    }
}
