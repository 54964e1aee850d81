import Foundation
import Testing
@testable import MQABase

/// `JSONStreamWriter` against `JSON.rendered` on random trees: each tree is
/// streamed with random containers opened and closed by hand and the rest
/// given whole, and must come out byte for byte as the whole tree renders.
@Suite struct JSONStreamWriterTests {
    static func tree(_ r: inout SplitMix64, depth: Int) -> JSON {
        switch r.below(depth > 3 ? 5 : 8) {
        case 0: return .null
        case 1: return .bool(r.chance(0.5))
        case 2: return .int(Int64(r.int(in: -1000...1000)))
        case 3: return .double(r.double(in: -10...10))
        case 4: return .string(["", "a", "ü \"q\"", "line\nbreak", "tab\t\\"][r.below(5)])
        case 5, 6: return .array((0..<r.int(in: 0...4)).map { _ in tree(&r, depth: depth + 1) })
        default:
            return .object((0..<r.int(in: 0...4)).map { k in (["k\(k)", "ü", "\"x\""][r.below(3)], tree(&r, depth: depth + 1)) })
        }
    }

    /// Streams `json`: an array or object is opened by hand half the time.
    static func stream(_ json: JSON, key: String?, _ w: inout JSONStreamWriter, _ r: inout SplitMix64) {
        switch json {
        case .array(let items) where r.chance(0.5):
            w.beginArray(key: key)
            for item in items { stream(item, key: nil, &w, &r) }
            w.end()
        case .object(let fields) where r.chance(0.5):
            w.beginObject(key: key)
            for (k, v) in fields { stream(v, key: k, &w, &r) }
            w.end()
        default:
            w.value(json, key: key)
        }
    }

    @Test(arguments: [false, true]) func matchesTheWholeTree(pretty: Bool) throws {
        var r = SplitMix64(seed: pretty ? 2_026_120_701 : 2_026_120_702)
        let path = NSTemporaryDirectory() + "/mqa-json-stream-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var opened = 0
        for _ in 0..<300 {
            let json = Self.tree(&r, depth: 0)
            let sink = try OutputSink(path: path)
            var w = JSONStreamWriter(sink, pretty: pretty)
            Self.stream(json, key: nil, &w, &r)
            w.finish()
            try sink.close()
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written == json.rendered(pretty: pretty))
            if case .array = json { opened += 1 }
            if case .object = json { opened += 1 }
        }
        // The trees did exercise containers, empty and not.
        #expect(opened > 100)
    }

    /// Long text reaches the sink in pieces and still comes out whole.
    @Test func longDocumentsFlushInPieces() throws {
        let path = NSTemporaryDirectory() + "/mqa-json-stream-long-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let items = (0..<20_000).map { JSON.object([("n", .int(Int64($0))), ("name", .string("viewer-\($0)"))]) }
        let sink = try OutputSink(path: path)
        var w = JSONStreamWriter(sink, pretty: true)
        w.beginObject()
        w.value(.string("t"), key: "track")
        w.beginArray(key: "subscribers")
        for item in items { w.value(item) }
        w.end()
        w.end()
        w.finish()
        try sink.close()
        let whole = JSON.object([("track", .string("t")), ("subscribers", .array(items))]).rendered(pretty: true)
        #expect(whole.utf8.count > 1 << 20)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == whole)
    }
}
