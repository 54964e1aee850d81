import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// A webrtc-internals document is read a piece at a time, one
/// connection's object held at once: what comes out, and what a broken
/// document is told, must not depend on where the reads cut it.
@Suite struct InternalsStreamingTests {
    static func document() -> String {
        var connections: [(String, [Dump.Report])] = []
        for k in 0..<3 {
            let a = Dump.Report(id: "IA\(k)", type: "inbound-rtp", times: Dump.times([0, 1, 2, 3]), props: [
                ("kind", Dump.strings(Array(repeating: "audio", count: 4))),
                ("packetsReceived", ["10", "20", "30", "40"].map { "\(Int($0)! * (k + 1))" }),
                ("bytesReceived", ["1000", "2000", "3000", "4000"]), ("packetsLost", ["0", "1", "1", "2"])])
            let v = Dump.Report(id: "IV\(k)", type: "inbound-rtp", times: Dump.times([0, 1, 2, 3]), props: [
                ("kind", Dump.strings(Array(repeating: "video", count: 4))), ("trackIdentifier", Dump.strings(Array(repeating: "t\(k)", count: 4))),
                ("packetsReceived", ["5", "10", "15", "20"]), ("framesDecoded", ["1", "4", "4", "9"]), ("bytesReceived", ["500", "900", "1300", "1700"])])
            connections.append(("\(k + 5)-1", [a, v]))
        }
        // A byte order mark, spaces, an escaped key, a member after PeerConnections.
        let text = Dump.internals(connections)
            .replacingOccurrences(of: #"{"getUserMedia":[]"#, with: "\u{FEFF} {\n \"getUserMedia\" : [ {\"a\\u0022b\": [1, 2.5e3, true, null]} ] ")
            .replacingOccurrences(of: #""UserAgent":"test""#, with: #""UserAgent" : "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0", "cpu\"": 2"#)
        return text + "\n"
    }

    /// The document fed in pieces of `sizes` (cycled).
    static func convert(_ text: String, pieces sizes: [Int]) throws -> Conversion {
        let bytes = Array(text.utf8)
        let context = ImportContext(meeting: nil, name: "call", file: "/d/call.json", emit: nil)
        let reader = WebRTCInternalsImporter.DocumentReader(WebRTCInternalsImporter(context: context))
        var at = 0
        var k = 0
        try bytes.withUnsafeBufferPointer { b in
            while at < b.count {
                let end = min(b.count, at + sizes[k % sizes.count])
                try reader.feed(UnsafeBufferPointer(rebasing: b[at..<end]))
                at = end
                k += 1
            }
        }
        return try reader.finish()
    }

    @Test func piecesOfAnySizeReadAsTheWhole() throws {
        let text = Self.document()
        let whole = try Dump.convert(text, .webrtcInternals, file: "/d/call.json")
        #expect(whole.connections.count == 3 && !whole.lines.isEmpty)
        #expect(Dump.events(whole)[0]["device"] as? String == "Chrome 156")
        var rng = SplitMix64(seed: 9)
        let random = (0..<20).map { _ in (0..<5).map { _ in Int(rng.next() % 97) + 1 } }
        for sizes in [[1], [2], [3], [7], [64], [4096]] + random {
            let c = try Self.convert(text, pieces: sizes)
            #expect(c.lines == whole.lines, "\(sizes)")
            #expect(c.connections == whole.connections && c.skipped == whole.skipped, "\(sizes)")
        }
    }

    /// A broken document says the same, at the same byte, however it came.
    @Test func aBrokenDocumentIsToldTheSameInPieces() throws {
        let good = Self.document()
        let broken = [
            "",
            "  [1]",
            #"{"PeerConnections":{}} x"#,
            #"{"PeerConnections":{}"#,
            #"{"PeerConnections":{},}"#,
            #"{"PeerConnections" {}}"#,
            #"{"PeerConnections":{"1-1":{"stats":{"I-timestamp":{"statsType":"inbound-rtp","values":"[1,"}}}}}"#,
            #"{"getUserMedia":[1,,2],"PeerConnections":{}}"#,
            #"{"getUserMedia":[],"UserAgent":"x"}"#,
            #"{"PeerConnections":{"1-1":{"stats":{}} "2-1":{}}}"#,
            #"{"PeerConnections":{"1-1":7},"a":tru}"#,
            #"{"a\q":1,"PeerConnections":{}}"#,
            String(good.dropLast(3)),
        ]
        for text in broken {
            var whole: String? = nil
            do { _ = try Dump.convert(text, .webrtcInternals) } catch { whole = "\(error)" }
            #expect(whole != nil, "\(text.prefix(60)) is refused")
            for sizes in [[1], [2], [5]] {
                var pieces: String? = nil
                do { _ = try Self.convert(text, pieces: sizes) } catch { pieces = "\(error)" }
                #expect(pieces == whole, "\(text.prefix(60)) in pieces of \(sizes)")
            }
        }
        #expect(throws: ImportError.self) { try Dump.convert(#"{"PeerConnections":{}} x"#, .webrtcInternals) }
    }
}
