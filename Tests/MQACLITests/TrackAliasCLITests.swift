import Foundation
import Testing
import MQAStore

/// `report track` given a browser dump's own id of a track: it means the
/// sender's track the dump named, found in the meeting a prefix names;
/// an id two dumps gave to different senders' tracks is refused with both
/// names (it was settled by a dictionary's order, differing per run).
@Suite struct TrackAliasCLITests {
    static let t0: Int64 = 1_795_946_400_000

    /// Ann and Dan watch Bob's video, Cat Zed's. Ann's dump calls Bob's
    /// `tv-1`, Cat's calls Zed's `tv-1` too, and Dan's calls Bob's `tv-7`.
    static func store(_ dir: Scratch) throws -> String {
        let db = dir.file("alias.sqlite")
        var log = ""
        for (uid, sender) in [("ann", "bob"), ("cat", "zed"), ("dan", "bob")] {
            log += "{\"ts\":\(t0),\"event\":\"meeting_join\",\"meeting\":\"rtc-alias\",\"uid\":\"\(uid)\",\"engine\":\"sfu\"}\n"
            log += "{\"ts\":\(t0 + 100),\"event\":\"stream_subscribe\",\"meeting\":\"rtc-alias\",\"uid\":\"\(uid)\","
                + "\"publisher\":\"\(sender)\",\"track\":\"\(sender)-video\",\"kind\":\"camera\"}\n"
            for i in 1...5 {
                log += "{\"ts\":\(t0 + 2000 * Int64(i)),\"event\":\"quality_report\",\"meeting\":\"rtc-alias\",\"uid\":\"\(uid)\","
                    + "\"loss\":0,\"rtt\":40,\"jitter\":5,\"bitrate\":900,\"mos\":4.2}\n"
            }
        }
        #expect(MQA.run(["ingest", "--db", db, dir.write("call.ndjson", log)]).status == 0)
        let store = try EventStore(path: db)
        for (uid, connection, tracks) in [("ann", "PC_0", ["tv-1": "bob-video"]), ("cat", "PC_0", ["tv-1": "zed-video"]),
                                          ("dan", "PC_0", ["tv-7": "bob-video"])] {
            var c = ConnectionContext(file: "", connection: connection)
            c.meeting = "rtc-alias"
            c.uid = uid
            c.senderTracks = tracks
            try store.putConnectionContext(c)
        }
        return db
    }

    @Test func anAmbiguousDumpIdIsRefusedAndAPrefixFindsTheMeeting() throws {
        let dir = Scratch()
        let db = try Self.store(dir)
        let ambiguous = MQA.run(["report", "track", "tv-1", "--meeting", "rtc-al", "--db", db])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr.contains(#"track "tv-1" of meeting "rtc-alias" is a dump's own id for several senders' tracks: "bob-video", "zed-video""#),
                "\(ambiguous)")
        #expect(ambiguous.stdout.isEmpty)
        // Dan's `tv-7` is Bob's video alone: found through the meeting's prefix.
        let alias = MQA.run(["report", "track", "tv-7", "--meeting", "rtc-al", "--db", db])
        #expect(alias.status == 0, "\(alias)")
        #expect(alias.stdout.hasPrefix("# Track bob-video in meeting rtc-alias"))
        let named = MQA.run(["report", "track", "zed-video", "--meeting", "rtc-alias", "--db", db])
        #expect(named.status == 0 && named.stdout.hasPrefix("# Track zed-video in meeting rtc-alias"), "\(named)")
    }
}
