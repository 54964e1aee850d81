import Foundation
import Testing
@testable import MQABase
@testable import MQAStore

/// The streaming gunzip: concatenated members, tiny buffers, damage.
@Suite struct GzipTests {
    func gzip(_ text: String) throws -> [UInt8] {
        let dir = NSTemporaryDirectory() + "mqa-gz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/a"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gzip", "-f", path]
        try p.run()
        p.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
    }

    /// Inflates `input` feeding `step` bytes at a time into a 7-byte output buffer.
    func inflate(_ input: [UInt8], step: Int) throws -> ([UInt8], Bool) {
        let stream = GzipStream()
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 7)
        var offset = 0
        while offset < input.count {
            let chunk = Array(input[offset..<min(input.count, offset + step)])
            offset += chunk.count
            var inPos = 0
            while inPos < chunk.count {
                var outPos = 0
                let before = inPos
                try chunk.withUnsafeBytes { i in
                    try buffer.withUnsafeMutableBytes { o in
                        try stream.decompress(input: i, inputPosition: &inPos, output: o, outputPosition: &outPos)
                    }
                }
                out += buffer[0..<outPos]
                if outPos == 0 && inPos == before { break }
            }
        }
        return (out, stream.atFrameBoundary)
    }

    @Test func membersAndSmallBuffers() throws {
        let a = String(repeating: "line one\n", count: 500)
        let both = try gzip(a) + gzip("second member\n")
        #expect(detect(both) == .gzip)
        for step in [1, 3, 4096] {
            let (out, whole) = try inflate(both, step: step)
            #expect(String(decoding: out, as: UTF8.self) == a + "second member\n")
            #expect(whole)
        }
    }

    @Test func truncationAndDamageAreSeen() throws {
        let data = try gzip(String(repeating: "abc\n", count: 1000))
        let (_, whole) = try inflate(Array(data.dropLast(5)), step: 64)
        #expect(!whole, "a cut stream does not end at a member boundary")
        var damaged = data
        damaged[12] ^= 0xFF
        damaged[20] ^= 0xFF
        #expect(throws: GzipError.self) { _ = try inflate(damaged, step: 64) }
    }

    func detect(_ bytes: [UInt8]) -> Compression { bytes.withUnsafeBytes { Compression.detect($0) } }

    @Test func magicBytes() {
        #expect(detect([0x28, 0xB5, 0x2F, 0xFD, 0]) == .zstd)
        #expect(detect(Array("{\"ts\"".utf8)) == .none)
        #expect(detect([0x1F]) == .none)
    }
}
