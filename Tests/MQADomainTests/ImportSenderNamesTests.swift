import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// One call, several dumps: a browser names the peers it receives after
/// their media (stream ids, SSRCs), the sender's own dump names its
/// person after the file or the user; the sender's local description links
/// the two (Docs/import.md, "One call, several dumps").
@Suite struct ImportSenderNamesTests {
    /// An offer as Chrome logs it: audio and camera sent in one stream,
    /// a screen slot only received, a rejected section.
    static let offer = [
        "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0", "a=sendrecv", "a=msid:cam-stream a-track", "a=ssrc:7 cname:x",
        "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "a=mid:1", "a=sendrecv", "a=msid:cam-stream v-track",
        "a=ssrc-group:FID 111 112", "a=ssrc:111 cname:x", "a=ssrc:111 msid:cam-stream v-track", "a=ssrc:112 cname:x",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:2", "a=recvonly", "a=msid:- r-track", "a=ssrc:500 cname:x",
        "m=video 0 UDP/TLS/RTP/SAVPF 96", "a=mid:3", "a=msid:old-stream o-track", "a=ssrc:600 cname:x",
    ].joined(separator: "\r\n") + "\r\n"

    @Test func aLocalDescriptionNamesTheSentMedia() throws {
        let names = ["cam-stream", "remote-111", "remote-112"]
        // As the SDP itself, as webrtc-internals' text, as rtcstats' JSON.
        #expect(SentMediaNames.from(loggedDescription: Self.offer) == names)
        #expect(SentMediaNames.from(loggedDescription: "type: offer, sdp: " + Self.offer) == names)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["type": "offer", "sdp": Self.offer]), as: UTF8.self)
        #expect(SentMediaNames.from(loggedDescription: json) == names)
        // Jitsi's stream names its endpoint, as a receiver reads it; Plan B
        // names the stream on its SSRC lines; a send-only section sends.
        let jitsi = "v=0\r\nm=video 9 RTP 96\r\na=sendonly\r\na=ssrc:9 msid:abcd1234-video-0-1 t\r\n"
        #expect(SentMediaNames.from(loggedDescription: jitsi) == ["abcd1234", "remote-9"])
        // Nothing sent, or no description: no names.
        #expect(SentMediaNames.from(loggedDescription: "v=0\r\nm=video 9 RTP 96\r\na=inactive\r\na=msid:s t\r\n").isEmpty)
        #expect(SentMediaNames.from(loggedDescription: "rollback").isEmpty)
    }

    /// The page's text is not checked JSON: a bad escape in a logged
    /// description names nothing (it stopped the whole ingest), good ones
    /// are undone; an empty track id names no track.
    @Test func aBrokenOrOddDescriptionNamesNothingAndStopsNothing() {
        let good = #"{"type":"offer","sdp":"v=0\r\nm=video 9 RTP 96\r\na=sendrecv\r\na=msid:c\u0041m t\r\na=ssrc:5 cname:x\r\n"}"#
        #expect(SentMediaNames.from(loggedDescription: good) == ["cAm", "remote-5"])
        for bad in [#"\u12"#, #"\uZZZZ"#, #"\u00G1"#] {
            let text = #"{"type":"offer","sdp":"v=0\r\nm=video 9 RTP 96\r\na=msid:s t\r\n\#(bad)"}"#
            #expect(SentMediaNames.from(loggedDescription: text).isEmpty, "\(bad)")
            #expect(SentMediaNames.received(loggedDescription: text).tracks.isEmpty, "\(bad)")
        }
        let spaced = "v=0\r\nm=video 9 RTP 96\r\na=msid:s  t\r\na=ssrc:5 cname:x\r\n"
        #expect(SentMediaNames.received(loggedDescription: spaced).tracks.isEmpty)
    }

    /// A client's two tracks of one sender's track (overlapping
    /// connections, each receiving it) stay two: made one, the first
    /// connection's end ended the second's subscription and hid its stall.
    /// A track the client sent itself stays as named.
    @Test func onlyOneToOneTracksAreRenamed() throws {
        let scratch = Scratch()
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [scratch.write("ann.ndjson", [qr(1_795_946_400_000, uid: "Ann", meeting: "m")])])
        for (connection, tracks) in [("PC_0", ["tv-0": "bob-v", "tv-9": "cat-v"]), ("PC_1", ["tv-1": "bob-v"])] {
            var c = ConnectionContext(file: "", connection: connection)
            c.meeting = "m"
            c.uid = "Ann"
            c.senderTracks = tracks
            try store.putConnectionContext(c)
        }
        #expect(try store.senderTracks(meeting: "m") == ["Ann": ["tv-9": "cat-v"]])

        let loop = MeetingLog(meeting: "m", clients: [ClientLog(uid: "Ann", events: [
            TimedEvent(ts: 1, payload: .streamSubscribe(publisher: "ann-cam", track: "tv-self", kind: "camera"), reportsBefore: 0),
        ])])
        #expect(loop.resolvingSenders(publishers: ["ann-cam": "Ann"], tracks: ["Ann": ["tv-self": "ann-v"]]) == loop)
    }

    /// An rtcstats dump of one person in the room `Standup` who sends the
    /// stream `sends` (video SSRC `ssrc`) and receives the video track
    /// `tv` of the stream `receives`, whose frames stop from 6 s to 9 s;
    /// `loss` percent of their audio is lost from 5 s to 10 s.
    static func dump(user: String, endpoint: String, sends: String, ssrc: Int, receives: String, tv: String,
                     frozen: Bool = false, loss: Bool = false, senderTrack: String? = nil) -> [String] {
        func description(_ type: String, _ sdp: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: ["type": type, "sdp": sdp]), as: UTF8.self)
        }
        let local = "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=sendrecv\r\na=msid:\(sends) v\r\na=ssrc:\(ssrc) cname:c\r\n"
        var lines = [
            RTC.line("connectionInfo", nil, #"{"url":"https://meet.example.com/Standup","userAgent":"\#(RTC.chrome)"}"#, 0),
            RTC.line("identity", nil, #"{"displayName":"\#(user)","endpointId":"\#(endpoint)"}"#, 0),
            RTC.line("setLocalDescription", "PC_0", description("offer", local), 100),
            RTC.line("ontrack", "PC_0", "\"video:\(tv) stream:\(receives)\"", 200),
            RTC.state("PC_0", "connected", 300),
        ]
        if let senderTrack {
            // An answer as Chrome writes it: the track on the section, the SSRC with its cname only.
            let remote = "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=sendrecv\r\na=msid:\(receives) \(senderTrack)\r\na=ssrc:\(received) cname:d\r\n"
            lines.insert(RTC.line("setRemoteDescription", "PC_0", description("answer", remote), 150), at: 3)
        }
        var frames = 0
        var lost = 0
        for i in 1...14 {
            let at = Int64(1000 * i)
            if !(frozen && at > 6000 && at <= 9000) { frames += 25 }
            if loss && at > 5000 && at <= 10000 { lost += 20 }
            lines.append(RTC.stats("PC_0", at, [
                RTC.audioIn(50 * i, lost: lost), RTC.audioOut(50 * i), RTC.pair,
                ("IV", #""type":"inbound-rtp","kind":"video","ssrc":\#(Self.received),"trackIdentifier":"\#(tv)","packetsReceived":\#(40 * i),"framesDecoded":\#(frames),"bytesReceived":\#(40_000 * i)"#),
                ("OV", #""type":"outbound-rtp","kind":"video","ssrc":\#(ssrc),"packetsSent":\#(40 * i),"bytesSent":\#(40_000 * i)"#),
            ]))
        }
        return lines
    }

    /// The SSRC every dump here receives its video on.
    static let received = 4321

    /// A remote description names the sender's track on each SSRC: on the
    /// SSRC's own `msid` (an offer) or on its section's (Chrome's answer).
    @Test func aRemoteDescriptionNamesTheSendersTracks() {
        #expect(SentMediaNames.received(loggedDescription: Self.offer).tracks == ["111": "v-track", "112": "v-track"])
        let answer = "v=0\r\nm=video 9 RTP 96\r\na=sendrecv\r\na=msid:s cam\r\na=ssrc:5 cname:x\r\n"
            + "m=video 9 RTP 96\r\na=recvonly\r\na=ssrc:6 cname:x\r\n"
        #expect(SentMediaNames.received(loggedDescription: answer).tracks == ["5": "cam"])
    }

    /// Ann and Cat each watch Bob's camera, under ids their browsers made
    /// up, and both tiles freeze at once; Bob's own dump is not there.
    /// Read by the sender's track id (their received descriptions name
    /// it), it is one track that froze for everyone: the sender's side.
    @Test func twoViewersOfOneCameraWatchOneTrack() throws {
        let scratch = Scratch()
        func ingest(_ senderTrack: String?) throws -> [Incident] {
            let ann = scratch.write("ann-\(senderTrack ?? "").log", Self.dump(
                user: "Ann", endpoint: "e-ann", sends: "ann-cam", ssrc: 11, receives: "bob-cam", tv: "tv-1", frozen: true,
                senderTrack: senderTrack))
            let cat = scratch.write("cat-\(senderTrack ?? "").log", Self.dump(
                user: "Cat", endpoint: "e-cat", sends: "cat-cam", ssrc: 33, receives: "bob-cam", tv: "tv-2", frozen: true,
                senderTrack: senderTrack))
            let store = try EventStore(path: scratch.dir + "/\(senderTrack ?? "none").sqlite")
            _ = try Ingester(store: store).ingest(paths: [ann, cat])
            let log = try #require(try store.meetingLog("rtc-Standup"))
            if senderTrack != nil {
                // The export carries the sender's ids and reads back the same.
                let export = try exportText(store)
                #expect(export.contains(#""senderTracks":{"tv-1":"bob-video"}"#))
                let copy = try EventStore(path: scratch.dir + "/copy.sqlite")
                _ = try Ingester(store: copy).ingest(paths: [scratch.write("export.ndjson", [String(export.dropLast())])])
                #expect(try copy.meetingLog("rtc-Standup")?.clients.map(\.events) == log.clients.map(\.events))
                // A bad one is rejected, naming the field.
                let bad = export.replacingOccurrences(of: #""tv-1":"bob-video""#, with: #""tv-1":7"#)
                let told = try rejectReasons([String(bad.dropLast())], in: scratch)
                #expect(told == ["mqa_connection_context: senderTracks: must be an object of non-empty track ids (at most 256 characters)"], "\(told)")
            }
            return IncidentFinder.find(log, MeetingAnalysis.analyze(log, config: TierConfig()))
        }
        let named = try ingest("bob-video")
        let shared = try #require(named.first { $0.kinds.contains(.stall) })
        #expect(shared.track == "bob-video" && shared.uid == "bob-cam" && shared.cause == .publisher, "\(named)")
        #expect(shared.evidence.subscribers == ["Ann", "Cat"])
        // Without the descriptions: two tracks, each one viewer's, no side known.
        let apart = try ingest(nil).filter { $0.kinds.contains(.stall) }
        #expect(apart.count == 2 && apart.allSatisfy { $0.track == nil && $0.cause != .publisher }, "\(apart)")
    }

    @Test func aStoreWithBothDumpsReadsTheSendersTracksAsTheirs() throws {
        let scratch = Scratch()
        let ann = scratch.write("ann.log", Self.dump(user: "Ann", endpoint: "e-ann", sends: "ann-cam", ssrc: 11,
                                                     receives: "bob-cam", tv: "tv-bob", frozen: true))
        let bob = scratch.write("bob.log", Self.dump(user: "Bob", endpoint: "e-bob", sends: "bob-cam", ssrc: 22,
                                                     receives: "ann-cam", tv: "tv-ann", loss: true))
        func publishers(_ log: MeetingLog) -> [String: Set<String>] {
            Dictionary(uniqueKeysWithValues: log.clients.map { c in
                (c.uid, Set(c.events.filter { $0.payload.kind == .streamSubscribe }.compactMap { $0.payload.string("publisher") }))
            })
        }

        // Ann's dump alone: Bob's tile is named after his stream, and her
        // stall has no sender to weigh it against.
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [ann])
        let alone = try #require(try store.meetingLog("rtc-Standup"))
        #expect(publishers(alone) == ["Ann": ["bob-cam"]])
        let context = try #require(try store.connectionContexts(meeting: "rtc-Standup")["Ann"]?.first)
        #expect(context.knownAs == ["ann-cam", "e-ann", "remote-11"])

        // With Bob's dump, each tile is its sender's; the export keeps what
        // the dumps said, and the names, so that it ingests back the same.
        _ = try Ingester(store: store).ingest(paths: [bob])
        let both = try #require(try store.meetingLog("rtc-Standup"))
        #expect(publishers(both) == ["Ann": ["Bob"], "Bob": ["Ann"]])
        let export = try exportText(store)
        #expect(export.contains(#""publisher":"bob-cam""#) && !export.contains(#""publisher":"Bob""#))
        #expect(export.contains(#""knownAs":["ann-cam","e-ann","remote-11"]"#))
        let copy = try EventStore(path: scratch.dir + "/copy.sqlite")
        _ = try Ingester(store: copy).ingest(paths: [scratch.write("export.ndjson", [String(export.dropLast())])])
        #expect(try exportText(copy) == export)
        #expect(publishers(try #require(try copy.meetingLog("rtc-Standup"))) == publishers(both))

        // Ann's frozen tile of Bob lies in Bob's loss: the sender's side.
        let incidents = IncidentFinder.find(both, MeetingAnalysis.analyze(both, config: TierConfig()))
        let stall = try #require(incidents.first { $0.kinds.contains(.stall) })
        #expect(stall.cause == .publisher, "\(incidents)")
        #expect(stall.evidence.publishers == ["Bob"])
        let before = IncidentFinder.find(alone, MeetingAnalysis.analyze(alone, config: TierConfig()))
        #expect(before.first { $0.kinds.contains(.stall) }?.cause != .publisher)
    }

    /// A name two participants claim (a shared placeholder stream id, one
    /// endpoint id in two dumps) stands for neither.
    @Test func aNameTwoClaimNamesNobody() throws {
        let scratch = Scratch()
        let ann = scratch.write("ann.log", Self.dump(user: "Ann", endpoint: "e", sends: "shared", ssrc: 11, receives: "shared", tv: "t1"))
        let bob = scratch.write("bob.log", Self.dump(user: "Bob", endpoint: "e", sends: "shared", ssrc: 22, receives: "remote-11", tv: "t2"))
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [ann, bob])
        #expect(try store.publisherNames(meeting: "rtc-Standup", uids: ["Ann", "Bob"]) == ["remote-11": "Ann", "remote-22": "Bob"])
        let log = try #require(try store.meetingLog("rtc-Standup"))
        let named = log.clients.map { c in c.events.compactMap { $0.payload.kind == .streamSubscribe ? $0.payload.string("publisher") : nil } }
        #expect(named == [["shared"], ["Ann"]])
    }
}
