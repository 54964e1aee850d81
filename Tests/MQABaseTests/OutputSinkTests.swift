import Foundation
import Testing
@testable import MQABase

/// Pieces of any size, small ones buffered and large ones written as they
/// are, reach the file whole and in order.
@Suite struct OutputSinkTests {
    @Test func piecesOfAnySizeArriveInOrder() throws {
        let path = NSTemporaryDirectory() + "/mqa-sink-\(UUID().uuidString.prefix(8)).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var r = SplitMix64(seed: 83)
        var want = ""
        let sink = try OutputSink(path: path)
        var large = 0
        for k in 0..<400 {
            // Mostly lines; now and then a piece past the buffer's size.
            let n = r.chance(0.05) ? r.int(in: OutputSink.bufferBytes...(3 * OutputSink.bufferBytes)) : r.int(in: 0...200)
            let piece = String(repeating: Character(UnicodeScalar(UInt8(97 + k % 26))), count: n) + "\n"
            if n >= OutputSink.bufferBytes { large += 1 }
            want += piece
            sink.write(piece)
        }
        try sink.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == want)
        #expect(large > 5)
    }
}
