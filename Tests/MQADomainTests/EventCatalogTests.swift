import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// The event table against what depends on it: the schema, stored data of
/// format 1.0, and the 1.1 context events end to end.
@Suite struct EventCatalogTests {
    @Test func schemaRowsAreTheTable() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let select = try store.db.prepare("SELECT kind, name FROM event_kinds ORDER BY kind")
        var rows: [(Int64, String)] = []
        while try select.step() { rows.append((select.int64(0), select.string(1)!)) }
        #expect(rows.map(\.0) == EventKind.allCases.map { Int64($0.rawValue) })
        #expect(rows.map(\.1) == EventKind.allCases.map(\.name))
    }

    @Test func kindNumbersAndNamesAreUnique() {
        let kinds = EventKind.allCases
        #expect(Set(kinds).count == kinds.count)
        #expect(Set(kinds.map(\.name)).count == kinds.count)
        for k in kinds {
            #expect(EventKind(name: k.name) == k)
            #expect(EventKind(rawValue: k.rawValue) == k)
        }
        #expect(EventKind(rawValue: 0) == nil)
        #expect(EventKind.named == kinds)
        #expect(EventKind.named.map(\.name) == ["meeting_join", "meeting_leave", "disconnect", "reconnect", "quality_report",
            "connection_quality_change", "active_speakers_change", "stream_subscribe", "stream_unsubscribe",
            "receive_stream_status", "user_enter", "user_leave", "member_media_state", "room_title_change",
            "room_share_start", "room_share_stop", "audio_route_change", "audio_interruption", "device_change",
            "sub_meeting_move", "user_handup", "share_broadcast_start", "share_broadcast_stop", "network_change"])
        #expect(EventKind(name: "audio_level") == nil)
    }

    /// A store written by the format-1.0 code (`Fixtures/v1-store.sqlite`,
    /// every 1.0 kind, escapes, optional fields both ways) exports byte for
    /// byte what that code exported (`Fixtures/v1-export.ndjson`), and the
    /// export ingests back to the same text: kind numbers and canonical
    /// payload bytes of the old kinds did not move.
    @Test func aStoreOfFormat10ReadsAndExportsUnchanged() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let s = Scratch()
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("v1-store.sqlite").path, toPath: s.db)
        let expected = try String(contentsOf: fixtures.appendingPathComponent("v1-export.ndjson"), encoding: .utf8)
        let old = try EventStore(path: s.db)
        #expect(try exportText(old) == expected)
        let s2 = Scratch()
        let fresh = try EventStore(path: s2.db)
        let summary = try Ingester(store: fresh).ingest(paths: [s2.write("v1.ndjson", expected.split(separator: "\n").map(String.init))])
        #expect(summary.rejected == 0 && summary.ignored == 0 && summary.duplicates == 0)
        #expect(try exportText(fresh) == expected)
        // The stored payload bytes themselves, not only their export.
        let a = try old.db.prepare("SELECT data FROM event_chunks ORDER BY id")
        var blobs: [[UInt8]] = []
        while try a.step() { blobs.append(try a.withBlob(0) { try old.codec.decodeEvents($0) }.payloads.flatMap { $0 }) }
        let b = try fresh.db.prepare("SELECT data FROM event_chunks ORDER BY id")
        var freshBlobs: [[UInt8]] = []
        while try b.step() { freshBlobs.append(try b.withBlob(0) { try fresh.codec.decodeEvents($0) }.payloads.flatMap { $0 }) }
        #expect(blobs == freshBlobs)
    }
}

let ctx = #""ts":1795946400000,"meeting":"m-1","uid":"alice""#
func contextLine(_ event: String, _ fields: String) -> String {
    "{\(ctx),\"event\":\"\(event)\"\(fields.isEmpty ? "" : ",")\(fields)}"
}

@Suite struct ContextEventTests {
    @Test("1.1 context events are validated", arguments: [
        ("audio_route_change", #""route":"bluetooth","reason":"newDeviceAvailable""#, nil),
        ("audio_route_change", #""route":"speaker""#, "reason: missing"),
        ("audio_route_change", #""route":1,"reason":"override""#, "route: must be a string, not a number"),
        ("audio_route_change", #""route":"carPlay","reason":"somethingNew""#, nil),  // open vocabularies
        ("audio_interruption", #""phase":"began""#, nil),
        ("audio_interruption", #""phase":"ended""#, nil),
        ("audio_interruption", #""phase":"paused""#, #"phase: "paused" is not one of "began", "ended""#),
        ("audio_interruption", "", "phase: missing"),
        ("audio_interruption", #""phase":true"#, "phase: must be a string, not a boolean"),
        ("device_change", #""kind":"mic","change":"added""#, nil),
        ("device_change", #""kind":"speaker","change":"default","device":"AirPods Pro""#, nil),
        ("device_change", #""kind":"mic","change":"default","device":null"#, nil),
        ("device_change", #""kind":"mic","change":"added","device":7"#, "device: must be a string, not a number"),
        ("device_change", #""kind":"screen","change":"added""#, "kind: \"screen\" is not one of"),
        ("device_change", #""kind":"camera","change":"plugged""#, "change: \"plugged\" is not one of"),
        ("device_change", #""kind":"camera""#, "change: missing"),
        ("sub_meeting_move", #""target":"m-2""#, nil),
        ("sub_meeting_move", #""target":"m-2","reason":"breakout""#, nil),
        ("sub_meeting_move", #""reason":"breakout""#, "target: missing"),
        ("user_handup", #""step":"request""#, nil),
        ("user_handup", #""step":"confirmOpen""#, nil),
        ("user_handup", #""step":"raise""#, "step: \"raise\" is not one of"),
        ("user_handup", #""step":"re\u0071uest""#, nil),  // escapes decode before the compare
        ("share_broadcast_start", "", nil),
        ("share_broadcast_stop", #""extra":{"a":1}"#, nil),
    ])
    func rules(event: String, fields: String, expected: String?) {
        let line = contextLine(event, fields)
        if let expected {
            #expect(reason(line)?.hasPrefix(expected) == true, "\(line) -> \(reason(line) ?? "accepted")")
        } else {
            #expect(parse(line).0 == .event, "\(line) -> \(reason(line) ?? "")")
        }
    }

    @Test func canonicalBytesEqualThePayloadForm() {
        for (event, fields, canonical) in [
            ("audio_route_change", #""reason":"override","route":"speaker","x":1"#, #"{"route":"speaker","reason":"override"}"#),
            ("device_change", #""device":"Mic \"2\"","change":"removed","kind":"mic""#, #"{"kind":"mic","change":"removed","device":"Mic \"2\""}"#),
            ("device_change", #""device":null,"change":"removed","kind":"mic""#, #"{"kind":"mic","change":"removed"}"#),
            ("sub_meeting_move", #""target":"m-\u00e9""#, #"{"target":"m-é"}"#),
            ("share_broadcast_start", "", "{}"),
        ] {
            let (outcome, p) = parse(contextLine(event, fields))
            #expect(outcome == .event)
            var bytes: [UInt8] = []
            p.appendCanonicalPayload(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == canonical)
            #expect(p.payload().canonicalJSON == canonical)
            var again = LineParser(nowMs: 0)
            #expect(bytes.withUnsafeBufferPointer { again.payload(of: p.kind, canonicalJSON: $0) } == p.payload())
        }
    }

    /// One quoting rule for text (`JSON.quote`: reports, export) and bytes
    /// (`JSON.appendQuoted`: the canonical payload, ingest): the same
    /// literal, the short escapes where JSON has them, DEL and non-ASCII
    /// copied, and the literal reads back as the string.
    @Test(arguments: [
        ("plain m-42", #""plain m-42""#), ("say \"hi\"", #""say \"hi\"""#), (#"C:\x"#, #""C:\\x""#),
        ("a\nb\r\nc\td", #""a\nb\r\nc\td""#), ("\u{0}\u{1f}\u{1b}[31m", #""\u0000\u001f\u001b[31m""#),
        ("\u{7f}é🙂\u{2028}", "\"\u{7f}é🙂\u{2028}\""), ("", #""""#),
    ])
    func jsonStringsAreQuotedByOneRule(_ text: String, _ literal: String) throws {
        var quoted = ""
        JSON.quote(text, into: &quoted)
        #expect(quoted == literal)
        var bytes: [UInt8] = []
        JSON.appendQuoted(text.utf8, to: &bytes)
        #expect(bytes == Array(literal.utf8))
        let back = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        #expect(back as? String == text)
    }

    /// The spec's duplicate rule: same meeting, uid, event, instant and equal
    /// payload fields, optional ones included when present.
    @Test func duplicatesFollowTheSpec() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let first = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", [
            contextLine("device_change", #""kind":"mic","change":"added","device":"USB""#),
            contextLine("device_change", #""kind":"mic","change":"added""#),  // no device: a different event
            contextLine("audio_interruption", #""phase":"began""#),
            contextLine("share_broadcast_start", ""),
        ])])
        #expect(first.events == 4 && first.duplicates == 0)
        let again = try Ingester(store: store).ingest(paths: [s.write("b.ndjson", [
            contextLine("device_change", #""change":"added","kind":"mic","device":"USB","sdk":"4.1""#),  // duplicate
            contextLine("device_change", #""kind":"mic","change":"added","device":null"#),  // duplicate (null = absent)
            contextLine("audio_interruption", #""phase":"ended""#),  // other value: kept
            #"{"ts":"2026-11-29T10:00:00Z","event":"share_broadcast_start","meeting":"m-1","uid":"alice"}"#,  // same instant
            #"{"ts":1795946400000,"event":"share_broadcast_start","meeting":"m-1","uid":"bob"}"#,  // other uid
        ])])
        #expect(again.duplicates == 3)
        #expect(again.events == 2)
        #expect(again.ignored == 0)
    }

    @Test func exportRoundTripsContextEvents() throws {
        let s = Scratch()
        let lines = [
            #"{"ts":1795946399000,"event":"device_change","meeting":"m-1","uid":"alice","kind":"camera","change":"default","device":"FaceTime HD"}"#,
            #"{"ts":1795946400000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu"}"#,
            contextLine("audio_route_change", #""route":"bluetooth","reason":"newDeviceAvailable""#),
            #"{"ts":1795946401000,"event":"user_handup","meeting":"m-1","uid":"alice","step":"request"}"#,
            #"{"ts":1795946402000,"event":"sub_meeting_move","meeting":"m-1","uid":"alice","target":"m-1/breakout","reason":"host"}"#,
        ]
        let first = try EventStore(path: s.db)
        _ = try Ingester(store: first).ingest(paths: [s.write("a.ndjson", lines)])
        let exported = try exportText(first)
        #expect(exported.split(separator: "\n").count == 5)
        #expect(exported.contains(#""event":"device_change","meeting":"m-1","uid":"alice","kind":"camera","change":"default","device":"FaceTime HD"}"#))
        let s2 = Scratch()
        let second = try EventStore(path: s2.db)
        _ = try Ingester(store: second).ingest(paths: [s2.write("e.ndjson", exported.split(separator: "\n").map(String.init))])
        #expect(try exportText(second) == exported)
        #expect(try second.check().isClean)
    }
}

/// Docs/event-log.md: "a log gives the same numbers with and without them", through
/// the store: a device change before the join does not open a connection
/// early, and a client that logged only context events is no participant.
@Suite struct ContextChangesNoFigureTests {
    func analysis(_ lines: [String]) throws -> (MeetingAnalysis, MeetingLog) {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", lines)])
        let log = try #require(try store.meetingLog("m-1"))
        return (MeetingAnalysis.analyze(log, config: TierConfig()), log)
    }

    @Test func sameNumbersWithAndWithoutContext() throws {
        var plain = [#"{"ts":1795946400000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu"}"#]
        plain += (1...30).map { qr(t0 + Int64($0) * 2000, loss: $0 > 15 ? "9" : "0.4") }
        plain += [
            #"{"ts":1795946401000,"event":"stream_subscribe","meeting":"m-1","uid":"alice","publisher":"bob","track":"bob-cam","kind":"camera"}"#,
            #"{"ts":1795946402000,"event":"receive_stream_status","meeting":"m-1","uid":"alice","publisher":"bob","track":"bob-cam","timedOut":false}"#,
            #"{"ts":1795946440000,"event":"receive_stream_status","meeting":"m-1","uid":"alice","publisher":"bob","track":"bob-cam","timedOut":true}"#,
            #"{"ts":1795946460000,"event":"meeting_leave","meeting":"m-1","uid":"alice"}"#,
        ]
        let context = [
            #"{"ts":1795946370000,"event":"device_change","meeting":"m-1","uid":"alice","kind":"mic","change":"default","device":"USB"}"#,
            #"{"ts":1795946441000,"event":"audio_interruption","meeting":"m-1","uid":"alice","phase":"began"}"#,
            #"{"ts":1795946470000,"event":"audio_route_change","meeting":"m-1","uid":"alice","route":"speaker","reason":"override"}"#,
            #"{"ts":1795946390000,"event":"device_change","meeting":"m-1","uid":"carol","kind":"camera","change":"added"}"#,
            #"{"ts":1795946450000,"event":"share_broadcast_start","meeting":"m-1","uid":"alice"}"#,
        ]
        let (a, logA) = try analysis(plain)
        let (b, logB) = try analysis(plain + context)
        #expect(a.tiersJSON() == b.tiersJSON())
        #expect(a.participantsJSON == b.participantsJSON)
        #expect(a.tracksJSON == b.tracksJSON)
        #expect(a.issuesJSON == b.issuesJSON)
        #expect(logA.span! == logB.span!)
        #expect(logB.clients.map(\.uid) == ["alice"])
        #expect(logB.contextOnly.map(\.uid) == ["carol"])
        #expect(logB.clients[0].context.count == 4)
    }
}
