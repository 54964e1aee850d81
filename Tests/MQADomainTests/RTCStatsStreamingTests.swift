import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// An rtcstats dump is converted line by line as it is read, never held
/// whole: what comes out must not depend on where the reads cut it.
@Suite struct RTCStatsStreamingTests {
    /// A dump whose lines straddle the 1 MiB reads: a BOM, CRLF endings,
    /// blank and broken lines, samples of random sizes (one over 1 MiB),
    /// no newline at the end.
    static func dump(seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var lines: [String] = [#"["connectionInfo",null,{"url":"https://meet.example/room-7","userAgent":"Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0"},1795946399000]"#]
        var received = 0
        for i in 0..<400 {
            received += Int(rng.next() % 90) + 10
            // Reports that only make the line long: line 200 is over 1 MiB.
            let extra = i == 200 ? 15_000 : Int(rng.next() % 300)
            var reports = #""I":{"type":"inbound-rtp","kind":"audio","packetsReceived":\#(received),"packetsLost":\#(i / 7),"bytesReceived":\#(received * 160),"jitter":0.004}"#
            for k in 0..<extra { reports += #","X\#(i)-\#(k)":{"type":"codec","payloadType":\#(k % 128),"mimeType":"audio/opus","clockRate":48000}"# }
            lines.append(#"["getstats","pc1",{"timestamp":\#(t0 + Int64(i) * 1000),\#(reports)},\#(t0 + Int64(i) * 1000)]"#)
            if i % 53 == 0 { lines.append("") }
            if i % 71 == 0 { lines.append("not json \(i)") }
        }
        lines.append(#"["onconnectionstatechange","pc1","closed",\#(t0 + 400_000)]"#)
        return [0xEF, 0xBB, 0xBF] + Array(lines.joined(separator: "\r\n").utf8)
    }

    func streamed(_ path: String) throws -> (Conversion, String?) {
        let reader = try LineReader(path: path)
        let importer = RTCStatsImporter(context: ImportContext(meeting: nil, name: "call", file: "/d/call.txt.gz", emit: nil))
        var progress = RTCStatsImporter.Progress()
        try reader.forEachContentLine { try importer.take($0, into: &progress) }
        return (try importer.finish(&progress), reader.finalDigest)
    }

    @Test(arguments: [1, 2] as [UInt64])
    func linesReadAsTheyComeConvertAsTheWholeDump(seed: UInt64) throws {
        let s = Scratch()
        let bytes = Self.dump(seed: seed)
        #expect(bytes.count > 3 << 20)
        let path = s.dir + "/call.txt"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let whole = try bytes.withUnsafeBufferPointer {
            try WebRTCImport.convert($0, format: .rtcstats, fileName: "/d/call.txt.gz", meeting: nil)
        }
        #expect(whole.connections.first?.samples == 400)
        #expect(whole.rejects.map(\.line) == [4, 77, 150, 224, 297, 370], "\(whole.rejects.map(\.line))")
        for file in [path, try ImportIngestTests().compress("gzip", path)] {
            let (c, digest) = try streamed(file)
            #expect(c.lines == whole.lines, "\(file)")
            #expect(c.rejects == whole.rejects, "\(file)")
            #expect(c.connections == whole.connections && c.skipped == whole.skipped)
            // The digest is the content's, as a whole read hashes it.
            let again = try LineReader(path: file)
            _ = try again.readAll()
            #expect(digest != nil && digest == again.finalDigest)
        }
    }

    /// Past the limit of a dump's content, the read stops with the same
    /// error as a whole read, before the conversion sees the bytes past it.
    @Test func theContentLimitHoldsLineByLine() throws {
        let s = Scratch()
        let bytes = Self.dump(seed: 4)
        let path = s.dir + "/call.txt"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path)
        reader.dumpLimits.maxBytes = 1 << 20
        var lines = 0
        #expect(throws: InputError.self) { try reader.forEachContentLine { _ in lines += 1 } }
        #expect(lines == 0)
    }
}
