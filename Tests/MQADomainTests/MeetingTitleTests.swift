import Testing
import MQATestSupport
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// The meeting's title (the latest rename, else the earliest join's title;
/// ties by uid order) and a meeting's reader letting go of the long titles
/// no report can show: the title read is the one of the whole log.
@Suite struct MeetingTitleTests {
    /// The rule as `MeetingLog.title` wrote it before `MeetingTitleChoice`.
    static func reference(_ clients: [ClientLog]) -> String? {
        var rename: (ts: Int64, title: String)?, join: (ts: Int64, title: String)?
        for client in clients {
            for e in client.events {
                if e.payload.kind == .roomTitleChange, let t = e.payload.string("title"), rename == nil || e.ts >= rename!.ts {
                    rename = (e.ts, t)
                } else if e.payload.kind == .meetingJoin, let t = e.payload.string("title"), join == nil || e.ts < join!.ts {
                    join = (e.ts, t)
                }
            }
        }
        return rename?.title ?? join?.title
    }

    static let long = String(repeating: "t", count: EventStore.longestUnshownTitle + 1)

    /// Random meetings, times from a small range so that ties are common,
    /// titles short, long or absent, renames in a third of them.
    @Test func theChoiceIsTheRuleAndDroppingTheBeatenKeepsIt() {
        var rng = SplitMix64(seed: 11)
        var kept = 0, dropped = 0
        for round in 0..<400 {
            var clients: [ClientLog] = []
            var n = 0
            for c in 0..<Int(rng.next() % 5 + 1) {
                var b = ClientBuilder("u\(c)")
                for _ in 0..<Int(rng.next() % 4) {
                    n += 1
                    let title: String? = switch rng.next() % 3 { case 0: nil; case 1: "t\(n)"; default: Self.long + "\(n)" }
                    let ts = Int64(rng.next() % 6)
                    if round % 3 == 0 && rng.next() % 3 == 0 {
                        b.event(ts, .roomTitleChange(title: title ?? "r\(n)", previousTitle: Self.long + "p\(n)"))
                    } else {
                        b.join(ts, title: title)
                    }
                }
                clients.append(b.build())
            }
            let expected = Self.reference(clients)
            #expect(MeetingLog(meeting: "m", clients: clients).title == expected, "round \(round)")
            // As a meeting's reader does it: each client as it is read.
            var logs: [ClientLog] = [], choice = MeetingTitleChoice()
            for client in clients {
                logs.append(client)
                EventStore.dropUnshownTitles(of: &logs, &choice)
            }
            #expect(MeetingLog(meeting: "m", clients: logs).title == expected, "round \(round)")
            let longLeft = logs.flatMap(\.events).filter { ($0.payload.string("title")?.count ?? 0) > Self.long.count - 1 }
            #expect(longLeft.count <= 1 && longLeft.allSatisfy { $0.payload.string("title") == expected }, "round \(round)")
            #expect(!logs.flatMap(\.events).contains { $0.payload.string("previousTitle") != nil })
            kept += longLeft.count
            dropped += clients.flatMap(\.events).count { ($0.payload.string("title")?.count ?? 0) >= Self.long.count } - longLeft.count
        }
        // Both happened, many times.
        #expect(kept > 50 && dropped > 200, "kept \(kept), dropped \(dropped)")
    }

    /// Through the store: 30 joins of distinct long titles and a short one;
    /// the earliest join's long title is the meeting's, the others are let
    /// go, the short one stays.
    @Test func aStoredMeetingKeepsOnlyTheLongTitleItShows() throws {
        let s = Scratch()
        var lines: [String] = []
        for c in 0..<30 {
            let title = c == 5 ? "short" : Self.long + "-\(c)"
            lines.append(#"{"ts":\#(t0 + Int64(100 - c)),"event":"meeting_join","meeting":"m-1","uid":"u\#(c)","engine":"sfu","title":"\#(title)"}"#)
            lines.append(qr(t0 + 5000 + Int64(c), uid: "u\(c)"))
        }
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", lines)])
        let log = try #require(try store.meetingLog("m-1"))
        #expect(log.title == Self.long + "-29")
        let titles = log.clients.flatMap(\.events).compactMap { $0.payload.string("title") }
        #expect(titles.sorted() == ["short", Self.long + "-29"].sorted())
        _ = try store.refreshSummaries()
        #expect(try store.meetingSummaries().map(\.header.title) == [Self.long + "-29"])
    }
}
