import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// A meeting's clients share one parse of each stored payload text
/// (`PayloadCache`); what each client reads back must not change by it.
@Suite struct PayloadCacheTests {
    /// The same text under two kinds (`{"target":"carol"}` of an enter and
    /// of a leave) stays two payloads, and clients that share a text each
    /// get it with their own kind and times.
    @Test func sharedTextsKeepTheirKinds() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        func line(_ ts: Int, _ uid: String, _ event: String) -> String {
            #"{"ts":\#(1_795_946_400_000 + ts),"event":"\#(event)","meeting":"m-1","uid":"\#(uid)","target":"carol"}"#
        }
        let summary = try Ingester(store: store).ingest(paths: [
            s.write("alice.ndjson", [line(0, "alice", "user_enter"), line(9_000, "alice", "user_leave")]),
            s.write("bob.ndjson", [line(1_000, "bob", "user_leave"), line(2_000, "bob", "user_enter")]),
            s.write("dave.ndjson", [line(3_000, "dave", "user_enter")]),
        ])
        #expect(summary.rejected == 0)
        let log = try #require(try store.meetingLog("m-1"))
        func kinds(_ uid: String) -> [EventKind] {
            log.clients.first { $0.uid == uid }?.events.map(\.payload.kind) ?? []
        }
        #expect(kinds("alice") == [.userEnter, .userLeave])
        #expect(kinds("bob") == [.userLeave, .userEnter])
        #expect(kinds("dave") == [.userEnter])
        let targets = log.clients.flatMap { $0.events.map { $0.payload.string("target") } }
        #expect(targets == Array(repeating: "carol", count: 5))
        #expect(log.clients.first { $0.uid == "bob" }?.events.map(\.ts) == [1_795_946_401_000, 1_795_946_402_000])
    }
}
