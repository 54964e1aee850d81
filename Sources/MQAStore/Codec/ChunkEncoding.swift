import MQABase
import MQAModel

/// How a chunk blob is laid out: its first byte. Every encoding ever
/// written stays readable, so a store made by an older mqa keeps working;
/// new chunks are always written in the newest encoding of their kind.
///
/// All share the envelope: the encoding byte, the CRC-32 (little-endian)
/// of everything after it, then the body. Docs/store.md gives each layout.
public enum ChunkEncoding: UInt8, CaseIterable, Sendable {
    /// Report chunks until schema 2: varint deltas in one zstd frame.
    case seriesVarint = 1
    /// Event chunks until schema 2: kinds and canonical payload JSON in one
    /// zstd frame.
    case eventsJSON = 2
    /// Report chunks: each column's bucket symbols in its own zstd frame,
    /// the raw low bits apart (`SeriesBucketEncoding`).
    case seriesBucketed = 3
    /// Event chunks: payloads split into dictionary-coded columns
    /// (`EventColumnarEncoding`).
    case eventsColumnar = 4

    /// Whether chunks of this encoding hold quality reports (else events).
    public var holdsReports: Bool { self == .seriesVarint || self == .seriesBucketed }

    /// The encoding named by a blob's first byte; `nil` for an empty blob
    /// or an unknown byte.
    public init?(of blob: UnsafeRawBufferPointer) {
        guard let first = blob.first, let encoding = ChunkEncoding(rawValue: first) else { return nil }
        self = encoding
    }
}

/// The envelope shared by all encodings.
enum ChunkEnvelope {
    static let headerSize = 5

    /// Wraps a body: encoding byte, CRC-32 of the body, the body.
    static func wrap(_ encoding: ChunkEncoding, body: (inout [UInt8]) throws -> Void) rethrows -> [UInt8] {
        var out: [UInt8] = [encoding.rawValue, 0, 0, 0, 0]
        try body(&out)
        let crc = out.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        for i in 0..<4 { out[1 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return out
    }

    /// Checks the checksum and that the encoding is one of `accepted`;
    /// returns the encoding and the body.
    static func open(_ blob: UnsafeRawBufferPointer, accepting accepted: [ChunkEncoding], what: String) throws
        -> (ChunkEncoding, UnsafeRawBufferPointer)
    {
        guard blob.count >= headerSize else { throw CorruptData("chunk is only \(blob.count) bytes") }
        guard let encoding = ChunkEncoding(rawValue: blob[0]), accepted.contains(encoding) else {
            let names = accepted.map { String($0.rawValue) }.joined(separator: " or ")
            throw CorruptData("chunk encoding \(blob[0]) is not one of \(what) (\(names))")
        }
        var header = ByteReader(UnsafeRawBufferPointer(rebasing: blob[1..<headerSize]))
        let stored = try header.uint32()
        let body = UnsafeRawBufferPointer(rebasing: blob[headerSize...])
        let actual = CRC32.checksum(body)
        guard stored == actual else { throw CorruptData("checksum mismatch (stored \(stored), computed \(actual))") }
        return (encoding, body)
    }
}

/// The body of the newer encodings: a few sections, each stored as it is or
/// as a zstd frame of its own, whichever is smaller. Separate frames give
/// each column its own Huffman table (one shared table for timestamps and
/// loss alike cost 4 % on the benchmark corpus), and a section zstd cannot
/// shrink (raw bits, a tiny chunk) costs no frame header.
///
///     per section: varint (length << 1 | compressed), then the bytes
struct SectionWriter {
    let compressor: ZstdCompressor

    func append(_ section: [UInt8], to out: inout [UInt8], compressible: Bool = true) throws {
        var w = ByteWriter()
        if compressible && section.count > 16 {
            var frame: [UInt8] = []
            try section.withUnsafeBytes { try compressor.compress($0, appendingTo: &frame) }
            if frame.count < section.count {
                w.varint(UInt64(frame.count) << 1 | 1)
                out += w.bytes
                out += frame
                return
            }
        }
        w.varint(UInt64(section.count) << 1)
        out += w.bytes
        out += section
    }
}

struct SectionReader {
    let decompressor: ZstdDecompressor
    /// Bytes the chunk's sections may still decompress to, all sections
    /// together: a chunk of 66 sections must not get 66 times the limit
    /// one frame has (a crafted 100 KB blob could ask for 4 GiB).
    private var budget: Int

    /// What a chunk of reports may decompress to: a few bytes a report.
    static let reportBudget = 64 << 20
    /// What an event chunk may decompress to: as much as ingest can write
    /// into one, `chunkCapacity` events of up to a whole line's payload
    /// each, and their columns. It was the reports' 64 MiB: 1,100 valid
    /// disconnects with a 70 KB error each made a chunk no command could
    /// read again, and every command on that store failed.
    static let eventBudget = EventStore.chunkCapacity * (LineParser.maxLineBytes + 4096)

    init(decompressor: ZstdDecompressor, budget: Int = SectionReader.reportBudget) {
        self.decompressor = decompressor
        self.budget = budget
    }

    /// The next section's bytes, decompressed when it was compressed.
    mutating func next(_ r: inout ByteReader) throws -> [UInt8] {
        let header = try r.varint()
        let length = header >> 1
        guard length <= UInt64(r.bytes.count - r.position) else { throw CorruptData("section of \(length) bytes runs past the chunk") }
        let bytes = UnsafeRawBufferPointer(rebasing: r.bytes[r.position..<r.position + Int(length)])
        r.position += Int(length)
        let section = header & 1 == 1 ? try decompressor.decompress(bytes, limit: max(budget, 0)) : Array(bytes)
        budget -= section.count
        return section
    }
}
