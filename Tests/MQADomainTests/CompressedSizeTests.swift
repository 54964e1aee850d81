import Foundation
import Testing
import MQATestSupport
@testable import MQABase
@testable import MQAIngest
@testable import MQAStore

/// What a compressed input holds once decompressed, as its zstd header or
/// gzip trailer records it: what an ingest counts to decide how many
/// inputs to read ahead.
@Suite struct CompressedSizeTests {
    func zstdSize(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBytes { Compression.zstdContentSize($0) } }

    @Test(arguments: [0, 1, 255, 256, 300, 65_791, 65_792, 70_000, 3_000_000])
    func zstdFramesTellTheirContentSize(size: Int) throws {
        let content = [UInt8](repeating: UInt8(ascii: "a"), count: size)
        var frame: [UInt8] = []
        try content.withUnsafeBytes { try ZstdCompressor(level: 1).compress($0, appendingTo: &frame) }
        #expect(zstdSize(Array(frame.prefix(18))) == size)
    }

    @Test func zstdHeadersWithoutASizeTellNone() {
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        #expect(zstdSize(magic + [0x00, 0x50]) == nil)  // no size field, a window byte
        #expect(zstdSize(magic + [0x21, 0x07, 0x2A]) == 42)  // single segment, a 1-byte dictionary id
        #expect(zstdSize(magic + [0x80, 0x50, 0x01, 0x02, 0x03, 0x04]) == 0x0403_0201)
        #expect(zstdSize(magic + [0x80, 0x50, 0x01]) == nil)  // cut short
        #expect(zstdSize([0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0]) == nil)  // a skippable frame first
        #expect(zstdSize(Array("{\"ts\":1}".utf8)) == nil)
    }

    @Test func gzipTrailersTellTheLastMembersSize() {
        func size(_ trailer: [UInt8]) -> Int? { trailer.withUnsafeBytes { Compression.gzipContentSize(trailer: $0) } }
        #expect(size([0x2A, 0, 0, 0]) == 42)
        #expect(size([0x80, 0xC3, 0xC9, 0x01]) == 30_000_000)
        #expect(size([0xFF, 0xFF, 0xFF, 0xFF]) == 4_294_967_295)
        #expect(size([0x2A, 0, 0]) == nil)
    }

    /// A reader counts a `.gz` or `.zst` file's content, never less than
    /// the file, and other names' files by their size.
    @Test func readersCountCompressedFilesByTheirContent() throws {
        let scratch = ScratchFolder()
        let text = String(repeating: #"{"ts":1700000000000,"event":"meeting_join","meeting":"m","uid":"u"}"# + "\n", count: 2000)
        let plain = scratch.write("log.ndjson", bytes: Array(text.utf8))
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        run.arguments = ["gzip", "-k", "-f", plain]
        try run.run()
        run.waitUntilExit()
        let gz = plain + ".gz"
        var zst: [UInt8] = []
        try Array(text.utf8).withUnsafeBytes { try ZstdCompressor(level: 1).compress($0, appendingTo: &zst) }
        let zstPath = scratch.write("log.ndjson.zst", bytes: zst)
        let unnamed = scratch.write("log.bin", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: gz))))
        let tiny = scratch.write("tiny.gz", bytes: [0x1F, 0x8B, 1, 2])
        #expect(try LineReader(path: plain).expandedSize == text.utf8.count)
        #expect(try LineReader(path: gz).expandedSize == text.utf8.count)
        #expect(try LineReader(path: zstPath).expandedSize == text.utf8.count)
        let unnamedReader = try LineReader(path: unnamed)
        #expect(unnamedReader.expandedSize == unnamedReader.size && unnamedReader.size! < 10_000)
        #expect(try LineReader(path: tiny).expandedSize == 4)
    }

    /// A header that records 2^63 - 1 bytes counts as 1 TiB: the inputs
    /// read ahead are summed, and that sum overflowed (a trap, nothing
    /// stored) when a small file was read ahead before it.
    @Test func aHugeRecordedSizeIsCappedAndTheOthersAreStored() throws {
        let scratch = ScratchFolder()
        let join = #"{"ts":1700000000000,"event":"meeting_join","meeting":"m1","uid":"UID","engine":"sfu"}"# + "\n"
        let a = scratch.write("a.ndjson", bytes: Array(join.replacingOccurrences(of: "UID", with: "u1").utf8))
        let c = scratch.write("c.ndjson", bytes: Array(join.replacingOccurrences(of: "UID", with: "u2").utf8))
        var header: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0xE0]
        withUnsafeBytes(of: UInt64(Int64.max).littleEndian) { header += $0 }
        let crafted = scratch.write("b.zst", bytes: header + [UInt8](repeating: 0, count: 16))
        #expect(try LineReader(path: crafted).expandedSize == 1 << 40)
        let store = try EventStore(path: scratch.file("mqa.sqlite"))
        var failed: [String] = []
        let ingester = Ingester(store: store)
        ingester.onInputError = { failed.append("\($0)") }
        let summary = try ingester.ingest(paths: [a, c, crafted])
        #expect(summary.events == 2 && failed.count == 1)
    }
}
