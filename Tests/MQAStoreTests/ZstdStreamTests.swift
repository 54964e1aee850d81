import Testing
@testable import MQABase
@testable import MQAStore

/// The streaming zstd decoder on what `pzstd` writes (a skippable frame
/// before each frame), and the compression sniffing of first bytes.
@Suite struct ZstdStreamTests {
    /// A skippable frame: magic 0x184D2A50 + `variant` (little-endian),
    /// the payload's length (32-bit little-endian), the payload.
    static func skippable(_ payload: [UInt8], variant: UInt8 = 0) -> [UInt8] {
        let n = UInt32(payload.count)
        return [0x50 + variant, 0x2A, 0x4D, 0x18, UInt8(n & 0xff), UInt8((n >> 8) & 0xff), UInt8((n >> 16) & 0xff), UInt8(n >> 24)]
            + payload
    }

    static func frame(_ text: String) throws -> [UInt8] {
        var out: [UInt8] = []
        try Array(text.utf8).withUnsafeBytes { try ZstdCompressor(level: 3).compress($0, appendingTo: &out) }
        return out
    }

    /// Decompresses `input` fed `step` bytes at a time into a 5-byte output
    /// buffer; returns the content and whether it ended on a frame boundary.
    static func decode(_ input: [UInt8], step: Int) throws -> ([UInt8], Bool) {
        let stream = ZstdStream()
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 5)
        var offset = 0
        while offset < input.count {
            let chunk = Array(input[offset..<min(input.count, offset + step)])
            offset += chunk.count
            var inPos = 0
            repeat {
                var outPos = 0
                try chunk.withUnsafeBytes { i in
                    try buffer.withUnsafeMutableBytes { o in
                        try stream.decompress(input: i, inputPosition: &inPos, output: o, outputPosition: &outPos)
                    }
                }
                out += buffer[0..<outPos]
                // A full output buffer may hold more back: call again until
                // the chunk is used up and nothing more comes out.
                if inPos == chunk.count && outPos < buffer.count { break }
            } while true
        }
        return (out, stream.atFrameBoundary)
    }

    /// A frame over 64 MiB grows its buffer with what comes out: a damaged
    /// size field claiming 2.1 GB fails without that allocation, and a
    /// real large frame, or one shorter or longer than it says, is told
    /// apart exactly.
    @Test func largeFramesGrowWithTheirContent() throws {
        let d = ZstdDecompressor()
        // Magic, single-segment descriptor with a 4-byte size, 2.1e9, a raw block of 0 bytes.
        var claim: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0xA0]
        withUnsafeBytes(of: UInt32(2_100_000_000).littleEndian) { claim += $0 }
        claim += [0x09, 0x00, 0x00, 0x7B]
        #expect(throws: ZstdError.self) { try claim.withUnsafeBytes { try d.decompress($0, limit: Int.max) } }
        let content = (0..<(70 << 20)).map { UInt8(truncatingIfNeeded: $0 / 4096) }
        var frame: [UInt8] = []
        try content.withUnsafeBytes { try ZstdCompressor().compress($0, appendingTo: &frame) }
        #expect(try frame.withUnsafeBytes { try d.decompress($0, limit: 80 << 20) } == content)
        #expect(throws: ZstdError.self) { try frame.withUnsafeBytes { try d.decompress($0, limit: 64 << 20) } }
        #expect(throws: ZstdError.self) { try frame.dropLast(8).withUnsafeBytes { try d.decompress(UnsafeRawBufferPointer($0), limit: 80 << 20) } }
    }

    @Test func skippableMagicsAreZstd() {
        for variant in UInt8(0)...15 {
            let head: [UInt8] = [0x50 + variant, 0x2A, 0x4D, 0x18]
            #expect(head.withUnsafeBytes { Compression.detect($0) } == .zstd, "variant \(variant)")
        }
        for head: [UInt8] in [[0x4F, 0x2A, 0x4D, 0x18], [0x60, 0x2A, 0x4D, 0x18], [0x50, 0x2A, 0x4D, 0x19], [0x50, 0x2A, 0x4D], [0x28, 0xB5, 0x2F]] {
            #expect(head.withUnsafeBytes { Compression.detect($0) } == .none, "\(head)")
        }
        #expect(([0x28, 0xB5, 0x2F, 0xFD] as [UInt8]).withUnsafeBytes { Compression.detect($0) } == .zstd)
        #expect(([0x1F, 0x8B] as [UInt8]).withUnsafeBytes { Compression.detect($0) } == .gzip)
    }

    /// What pzstd writes: per frame, a skippable frame holding its size, then
    /// the frame; lines cut across frames come out whole.
    @Test func skippableThenFramesDecodeAsOneContent() throws {
        let parts = ["{\"a\":1}\n{\"b\"", ":2}\n", "", "{\"c\":3}\n"]
        var input: [UInt8] = []
        for (i, part) in parts.enumerated() {
            let f = try Self.frame(part)
            let size = UInt32(f.count)
            input += Self.skippable([UInt8(size & 0xff), UInt8((size >> 8) & 0xff), 0, 0], variant: UInt8(i % 16)) + f
        }
        input += Self.skippable([])  // an empty skippable frame at the end
        for step in [1, 3, 7, input.count] {
            let (out, boundary) = try Self.decode(input, step: step)
            #expect(String(decoding: out, as: UTF8.self) == parts.joined(), "step \(step)")
            #expect(boundary, "step \(step)")
        }
    }

    @Test func aTruncatedSkippableFrameIsNotABoundary() throws {
        let input = try Self.frame("x\n") + Self.skippable(Array(repeating: 7, count: 100))
        let (out, boundary) = try Self.decode(Array(input.dropLast(10)), step: 16)
        #expect(out == Array("x\n".utf8))
        #expect(!boundary)
    }

    @Test func binaryHeads() {
        func binary(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { Compression.looksBinary($0) } }
        // lz4, xz, bzip2 with its block header, zip, UTF-16 with a BOM, an ELF binary.
        #expect(binary([0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7, 0x7B, 0x22]))
        #expect(binary([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04]))
        #expect(binary(Array("BZh91AY&SY".utf8) + [0x8E, 0x05, 0x12, 0x17, 0x00]))
        #expect(binary([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00]))
        #expect(binary([0xFF, 0xFE, 0x7B, 0x00, 0x22, 0x00]))
        #expect(binary([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00]))
        // Text never is: JSON, a BOM, colours, tabs and form feeds,
        // Latin-1 and bytes that are not UTF-8, one stray control, nothing.
        #expect(!binary(Array("{\"ts\":1795946400000,\"event\":\"meeting_join\",\"meeting\":\"m\",\"uid\":\"u\"}".utf8)))
        #expect(!binary([0xEF, 0xBB, 0xBF] + Array("{\"ts\":1}".utf8)))
        #expect(!binary(Array("\u{1B}[32m{\"ts\":1}\u{1B}[0m\r\n\t\u{0C}\u{0B}".utf8)))
        #expect(!binary([0xE9, 0xE8, 0xFC, 0xFF, 0xFE, 0x80, 0x81, 0xC0, 0xAF] + Array("caf\u{E9}".utf8)))
        #expect(!binary(Array("Script started\u{07} on a terminal".utf8)))
        #expect(!binary([]))
    }
}
