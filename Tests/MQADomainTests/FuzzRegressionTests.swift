import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Replays the committed fuzz corpus (Fuzz/corpus/{line,chunk}: seeds, the
/// minimized corpus of the long runs, and every input that ever crashed a
/// target, named crash-*) through the properties of the fuzz targets, so
/// that what the fuzzer found stays fixed without libFuzzer in CI.
@Suite struct FuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    static func inputs(_ target: String) -> [(String, [UInt8])] {
        let dir = corpus.appendingPathComponent(target).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: dir + "/" + name).map { (name, [UInt8]($0)) }
        }
    }

    @Test func lineCorpus() {
        let inputs = Self.inputs("line")
        #expect(inputs.count >= 10)
        let now: Int64 = 1_796_083_200_000  // the fuzz target's fixed "now"
        var parser = LineParser(nowMs: now)
        var second = LineParser(nowMs: now)
        for (name, bytes) in inputs {
            bytes.withUnsafeBufferPointer { line in
                guard parser.parse(line) == .event, parser.kind != .qualityReport else { return }
                let payload = parser.payload(in: line)
                let canonical = Array(payload.canonicalJSON.utf8)
                let back = canonical.withUnsafeBufferPointer { second.payload(of: parser.kind, canonicalJSON: $0) }
                #expect(back == payload, "\(name): canonical JSON does not read back")
            }
        }
    }

    @Test func chunkCorpus() throws {
        let inputs = Self.inputs("chunk")
        #expect(inputs.count >= 10)
        let codec = ChunkCodec(level: 1)
        for (_, bytes) in inputs where !bytes.isEmpty {
            let rest = Array(bytes.dropFirst())
            // Damage must throw, never trap: each decoder on the raw blob,
            // on the rest, and on the rest sealed with a valid checksum.
            var blobs = [bytes, rest]
            for encoding in ChunkEncoding.allCases {
                blobs.append(ChunkEnvelope.wrap(encoding) { $0 += rest })
                if let sealed = try? codec.seal(rest, as: encoding) { blobs.append(sealed) }
            }
            for blob in blobs {
                _ = try? codec.decode(blob)
                _ = try? codec.decodeEvents(blob)
            }
            _ = try? rest.withUnsafeBytes { try SeriesVarintEncoding.decodePayload($0) }
        }
    }
}
