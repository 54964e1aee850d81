import MQABase
import MQAModel

/// A block of one time series: timestamps and value columns of equal length.
public struct SeriesBlock: Equatable, Sendable {
    public var ts: [Int64]
    public var columns: [[DecimalNumber]]

    public init(ts: [Int64], columns: [[DecimalNumber]]) {
        self.ts = ts
        self.columns = columns
    }
}

/// Encodes blocks into compact, checksummed blobs and back.
///
/// New chunks are written in the newest encoding of their kind
/// (`ChunkEncoding.seriesBucketed`, `.eventsColumnar`); every older encoding
/// is still read, so stores made by earlier versions need no rewrite. Each
/// encoding lives in a file of its own; this type holds the zstd contexts
/// and dispatches on a blob's first byte.
///
/// Decoding never traps: damage (a wrong checksum, a truncated column, an
/// index out of range) throws `CorruptData` or `ZstdError`.
public struct ChunkCodec {
    let compressor: ZstdCompressor
    let decompressor = ZstdDecompressor()
    /// Where `EventStore`'s chunk rows remember what they encode, and the
    /// summary's reads look first (an ingest and its summary workers share
    /// one); nil elsewhere.
    package var recent: RecentChunks?

    /// Level 1. With the bucketed and columnar encodings zstd mostly
    /// entropy-codes symbols, so its match finder finds little: on 400 files
    /// of the benchmark corpus, levels 1, 3 and 5 gave chunks of 1.813,
    /// 1.817 and 1.811 MB, while the writer thread ran 1.28G, 1.32G and
    /// 1.47G instructions (callgrind). Level 19 saves 0.6 % for +12 % CPU.
    public init(level: Int32 = 1) { compressor = ZstdCompressor(level: level) }

    // MARK: Reports

    public mutating func encode(_ block: SeriesBlock) throws -> [UInt8] {
        try encode(block, as: .seriesBucketed)
    }

    /// `block` in a given report encoding, including the old ones (tests
    /// and the fuzz target make old chunks with it).
    public func encode(_ block: SeriesBlock, as encoding: ChunkEncoding) throws -> [UInt8] {
        precondition(block.columns.allSatisfy { $0.count == block.ts.count }, "ragged series block")
        switch encoding {
        case .seriesVarint: return try seal(SeriesVarintEncoding.payload(block), as: .seriesVarint)
        case .seriesBucketed:
            return try ChunkEnvelope.wrap(.seriesBucketed) {
                try SeriesBucketEncoding.encode(block, sections: SectionWriter(compressor: compressor), into: &$0)
            }
        case .eventsJSON, .eventsColumnar: preconditionFailure("\(encoding) holds events, not reports")
        }
    }

    /// Decodes a report chunk of any report encoding.
    public func decode(_ blob: UnsafeRawBufferPointer) throws -> SeriesBlock {
        let (encoding, body) = try ChunkEnvelope.open(blob, accepting: [.seriesVarint, .seriesBucketed], what: "report chunks")
        switch encoding {
        case .seriesVarint:
            let payload = try decompressor.decompress(body)
            return try payload.withUnsafeBytes { try SeriesVarintEncoding.decodePayload($0) }
        default:
            return try SeriesBucketEncoding.decode(body, sections: SectionReader(decompressor: decompressor))
        }
    }

    public func decode(_ blob: [UInt8]) throws -> SeriesBlock {
        try blob.withUnsafeBytes { try decode($0) }
    }

    // MARK: Events

    public mutating func encode(_ block: EventBlock) throws -> [UInt8] {
        try encode(block, as: .eventsColumnar)
    }

    /// `block` in a given event encoding, including the old one.
    public func encode(_ block: EventBlock, as encoding: ChunkEncoding) throws -> [UInt8] {
        precondition(block.kinds.count == block.ts.count && block.payloadEnds.count == block.ts.count, "ragged event block")
        switch encoding {
        case .eventsJSON: return try seal(EventJSONEncoding.payload(block), as: .eventsJSON)
        case .eventsColumnar:
            return try columnar(block, sharing: false).blob
        case .seriesVarint, .seriesBucketed: preconditionFailure("\(encoding) holds reports, not events")
        }
    }

    /// `block` in the newest event encoding, and the block as
    /// `decodeSharedEvents` would give it back.
    public func encodeSharing(_ block: EventBlock) throws -> (blob: [UInt8], shared: SharedEventBlock) {
        precondition(block.kinds.count == block.ts.count && block.payloadEnds.count == block.ts.count, "ragged event block")
        let (blob, shared) = try columnar(block, sharing: true)
        return (blob, shared!)
    }

    private func columnar(_ block: EventBlock, sharing: Bool) throws -> (blob: [UInt8], shared: SharedEventBlock?) {
        var shared: SharedEventBlock?
        let blob = try ChunkEnvelope.wrap(.eventsColumnar) {
            shared = try EventColumnarEncoding.encode(block, sections: SectionWriter(compressor: compressor), into: &$0, sharing: sharing)
        }
        return (blob, shared)
    }

    /// Decodes an event chunk of any event encoding.
    public func decodeEvents(_ blob: UnsafeRawBufferPointer) throws -> EventBlock {
        try decodeSharedEvents(blob).expanded
    }

    /// Decodes an event chunk with equal payloads held once.
    public func decodeSharedEvents(_ blob: UnsafeRawBufferPointer) throws -> SharedEventBlock {
        let (encoding, body) = try ChunkEnvelope.open(blob, accepting: [.eventsJSON, .eventsColumnar], what: "event chunks")
        switch encoding {
        case .eventsJSON:
            let payload = try decompressor.decompress(body, limit: SectionReader.eventBudget)
            return SharedEventBlock(try payload.withUnsafeBytes { try EventJSONEncoding.decodePayload($0) })
        default:
            return try EventColumnarEncoding.decode(body, sections: SectionReader(decompressor: decompressor, budget: SectionReader.eventBudget))
        }
    }

    public func decodeEvents(_ blob: [UInt8]) throws -> EventBlock {
        try blob.withUnsafeBytes { try decodeEvents($0) }
    }

    // MARK: The envelope of the first two encodings

    /// Wraps a payload as the first two encodings did: one zstd frame as
    /// the body. Tests and the fuzz target seal arbitrary bytes with it.
    func seal(_ payload: [UInt8], as encoding: ChunkEncoding) throws -> [UInt8] {
        try ChunkEnvelope.wrap(encoding) { out in
            try payload.withUnsafeBytes { try compressor.compress($0, appendingTo: &out) }
        }
    }
}
