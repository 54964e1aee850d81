import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// A received track's publisher under its other name (Docs/import.md, "One
/// call, several dumps"): Firefox's stats name no track, so its dump gives
/// each tile `remote-<ssrc>` where a Chrome or Safari viewer of the same
/// camera gives the sender's stream; and an SFU may rename the stream the
/// sender's dump knows, while the SSRC stays.
@Suite struct ImportPublisherNamesTests {
    /// A viewer's rtcstats dump in the room `Standup`: it receives video on
    /// SSRC `receives` (4321), whose stream is named by an `ontrack` line (`ontrack`), or
    /// only by the remote description's `a=ssrc:4321 msid:` (`msid`), as
    /// Firefox logs it (no `trackIdentifier`); it sends `sends` on `ssrc`.
    /// `laterMsid`: a renegotiation names another sender on that SSRC.
    static func viewer(_ user: String, sends: String, ssrc: Int, receives: Int = 4321, ontrack: String? = nil, msid: String? = nil,
                       laterMsid: String? = nil) -> [String] {
        func description(_ type: String, _ sdp: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: ["type": type, "sdp": sdp]), as: UTF8.self)
        }
        let local = "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=sendrecv\r\na=msid:\(sends) v\r\na=ssrc:\(ssrc) cname:c\r\n"
        var lines = [
            RTC.line("connectionInfo", nil, #"{"url":"https://meet.example.com/Standup","userAgent":"\#(RTC.chrome)"}"#, 0),
            RTC.line("identity", nil, #"{"displayName":"\#(user)"}"#, 0),
            RTC.line("setLocalDescription", "PC_0", description("offer", local), 100),
        ]
        for (at, stream) in [(150, msid), (250, laterMsid)] {
            guard let stream else { continue }
            let remote = "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=sendrecv\r\na=ssrc:\(receives) cname:d\r\n"
                + "a=ssrc:\(receives) msid:\(stream) \(stream)-video\r\n"
            lines.append(RTC.line("setRemoteDescription", "PC_0", description("answer", remote), Int64(at)))
        }
        if let ontrack { lines.append(RTC.line("ontrack", "PC_0", "\"video:tv-\(user) stream:\(ontrack)\"", 200)) }
        lines.append(RTC.state("PC_0", "connected", 300))
        // Firefox's inbound report: an SSRC, no track identifier.
        let track = ontrack == nil ? "" : #","trackIdentifier":"tv-\#(user)""#
        for i in 1...6 {
            lines.append(RTC.stats("PC_0", Int64(1000 * i), [
                RTC.audioIn(50 * i), RTC.audioOut(50 * i), RTC.pair,
                ("IV", #""type":"inbound-rtp","kind":"video","ssrc":\#(receives)\#(track),"packetsReceived":\#(40 * i),"framesDecoded":\#(25 * i),"bytesReceived":\#(40_000 * i)"#),
                ("OV", #""type":"outbound-rtp","kind":"video","ssrc":\#(ssrc),"packetsSent":\#(40 * i),"bytesSent":\#(40_000 * i)"#),
            ]))
        }
        return lines
    }

    /// The publishers of each client's subscriptions, as a meeting is read.
    static func publishers(_ log: MeetingLog) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: log.clients.map { c in
            (c.uid, c.events.filter { $0.payload.kind == .streamSubscribe }.compactMap { $0.payload.string("publisher") })
        })
    }

    @Test func aRemoteDescriptionNamesThePublisherOfEachSSRC() {
        let received = SentMediaNames.received(loggedDescription: ImportSenderNamesTests.offer)
        #expect(received.publishers == ["111": "cam-stream", "112": "cam-stream"])
        // Jitsi's stream names its endpoint; its placeholder names nobody.
        let jitsi = "v=0\r\nm=video 9 RTP 96\r\na=sendonly\r\na=ssrc:9 msid:abcd1234-video-0-1 t\r\n"
            + "a=ssrc:8 msid:mixedmslabel mixedlabelvideo0\r\n"
        #expect(SentMediaNames.received(loggedDescription: jitsi).publishers == ["9": "abcd1234"])
        // Plan B: SSRC 7 has no msid line of its own, and the section
        // holds two senders' streams: it could be either's.
        let planB = "v=0\r\nm=video 9 RTP 96\r\na=sendrecv\r\na=ssrc:5 msid:bob-cam bt\r\na=ssrc:6 msid:cat-cam ct\r\n"
            + "a=ssrc:7 cname:x\r\n"
        let read = SentMediaNames.received(loggedDescription: planB)
        #expect(read.publishers == ["5": "bob-cam", "6": "cat-cam"] && read.tracks == ["5": "bt", "6": "ct"])
    }

    /// An SFU that reuses an SSRC for another sender (a later description
    /// names another stream on it) shows several people on one tile: it
    /// is named after none of them, not after the last from its start.
    @Test func aReusedSSRCNamesNobody() throws {
        let scratch = Scratch()
        let ann = scratch.write("ann.log", Self.viewer("Ann", sends: "ann-cam", ssrc: 11, msid: "bob-cam", laterMsid: "cat-cam"))
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [ann])
        #expect(Self.publishers(try #require(try store.meetingLog("rtc-Standup"))) == ["Ann": ["remote-4321"]])
        let context = try #require(try store.connectionContexts(meeting: "rtc-Standup")["Ann"]?.first)
        #expect(context.senderPublishers.isEmpty && context.senderTracks.isEmpty, "\(context)")
    }

    /// A context line alone (an export of a newer build ingested over a
    /// store that holds its events) changes who sent a track: the stored
    /// summaries follow, not only the reports read from the events.
    @Test func aContextLineAloneRedoesTheSummaries() throws {
        let scratch = Scratch()
        let made = try EventStore(path: scratch.dir + "/made.sqlite")
        _ = try Ingester(store: made).ingest(paths: [scratch.write("ann.log", Self.viewer("Ann", sends: "ann-cam", ssrc: 11, msid: "bob-cam"))])
        let lines = try exportText(made).split(separator: "\n").map(String.init)
        let (context, events) = (lines.filter { $0.contains("mqa_connection_context") }, lines.filter { !$0.contains("mqa_connection_context") })
        #expect(context.count == 1)
        let store = try EventStore(path: scratch.db)
        func summarized() throws -> [String] {
            // As `mqa ingest` ends: the meetings marked stale are redone.
            try store.refreshSummaries()
            let s = try store.db.prepare("SELECT publisher FROM track_summary ORDER BY publisher")
            var out: [String] = []
            while try s.step() { out.append(s.string(0) ?? "") }
            return out
        }
        _ = try Ingester(store: store).ingest(paths: [scratch.write("events.ndjson", events)])
        let before = try summarized()
        #expect(before == ["remote-4321"], "\(before)")
        _ = try Ingester(store: store).ingest(paths: [scratch.write("context.ndjson", context)])
        let after = try summarized()
        #expect(after == ["bob-cam"], "\(after)")
    }

    /// Ann's Firefox and Cat's Chrome both watch Bob's camera; Bob's dump
    /// is not there. Ann's events keep `remote-4321`, as the spec has it;
    /// read, both tiles are the stream `bob-cam`, and the export carries
    /// the link so that it ingests back the same.
    @Test func aFirefoxTileGoesByTheStreamItsDescriptionNames() throws {
        let scratch = Scratch()
        let ann = scratch.write("ann.log", Self.viewer("Ann", sends: "ann-cam", ssrc: 11, msid: "bob-cam"))
        let cat = scratch.write("cat.log", Self.viewer("Cat", sends: "cat-cam", ssrc: 33, ontrack: "bob-cam"))
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [ann, cat])
        let log = try #require(try store.meetingLog("rtc-Standup"))
        #expect(Self.publishers(log) == ["Ann": ["bob-cam"], "Cat": ["bob-cam"]])

        let export = try exportText(store)
        #expect(export.contains(#""publisher":"remote-4321""#) && export.contains(#""senderPublishers":{"remote-4321":"bob-cam"}"#))
        let copy = try EventStore(path: scratch.dir + "/copy.sqlite")
        _ = try Ingester(store: copy).ingest(paths: [scratch.write("export.ndjson", [String(export.dropLast())])])
        #expect(try exportText(copy) == export)
        #expect(Self.publishers(try #require(try copy.meetingLog("rtc-Standup"))) == Self.publishers(log))

        let bad = export.replacingOccurrences(of: #""remote-4321":"bob-cam""#, with: #""remote-4321":"""#)
        let told = try rejectReasons([String(bad.dropLast())], in: scratch)
        #expect(told == ["mqa_connection_context: senderPublishers: must be an object of non-empty publisher names (at most 256 characters)"], "\(told)")

        // Without the description: the SSRC's name, as before.
        let plain = scratch.write("ann-plain.log", Self.viewer("Ann", sends: "ann-cam", ssrc: 11))
        let alone = try EventStore(path: scratch.dir + "/alone.sqlite")
        _ = try Ingester(store: alone).ingest(paths: [plain])
        #expect(Self.publishers(try #require(try alone.meetingLog("rtc-Standup"))) == ["Ann": ["remote-4321"]])
    }

    /// The SFU renamed Bob's stream `bob-cam` to `bob-cam-1` (Jitsi does)
    /// but kept his SSRC: Ann's tile is Bob's through the SSRC his own
    /// dump sends on. A stream whose SSRC nobody sends on keeps its name.
    @Test func aRenamedStreamIsItsSenderThroughTheSSRC() throws {
        let scratch = Scratch()
        let ann = scratch.write("ann.log", Self.viewer("Ann", sends: "ann-cam", ssrc: 11, ontrack: "bob-cam-1"))
        let bob = scratch.write("bob.log", Self.viewer("Bob", sends: "bob-cam", ssrc: 4321, receives: 11, ontrack: "ann-cam-1"))
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [ann])
        #expect(Self.publishers(try #require(try store.meetingLog("rtc-Standup"))) == ["Ann": ["bob-cam-1"]])
        _ = try Ingester(store: store).ingest(paths: [bob])
        let log = try #require(try store.meetingLog("rtc-Standup"))
        #expect(Self.publishers(log) == ["Ann": ["Bob"], "Bob": ["Ann"]])
    }

    /// The other name is used where it is one to one: a stream on two
    /// SSRCs of one connection links neither; a name of no participant
    /// does not replace a stream id.
    @Test func onlyAnUnambiguousOtherNameIsUsed() {
        let events = [
            TimedEvent(ts: 1, payload: .streamSubscribe(publisher: "s", track: "t1", kind: "camera"), reportsBefore: 0),
            TimedEvent(ts: 2, payload: .streamSubscribe(publisher: "remote-7", track: "t2", kind: "camera"), reportsBefore: 0),
        ]
        let log = MeetingLog(meeting: "m", clients: [ClientLog(uid: "Ann", events: events)])
        let streams = ["Ann": ["s": "remote-5", "remote-7": "s2"]]
        #expect(Self.publishers(log.resolvingSenders(publishers: [:], streams: streams)) == ["Ann": ["s", "s2"]])
        #expect(Self.publishers(log.resolvingSenders(publishers: ["remote-5": "Bob", "s2": "Cat"], streams: streams))
            == ["Ann": ["Bob", "Cat"]])
        // A publisher that is a participant's uid is that participant.
        let withCat = MeetingLog(meeting: "m", clients: [ClientLog(uid: "Ann", events: events), ClientLog(uid: "s", events: [])])
        #expect(Self.publishers(withCat.resolvingSenders(publishers: ["remote-5": "Bob"], streams: streams))
            == ["Ann": ["s", "s2"], "s": []])
    }
}
