/// A block of timestamped records with a kind byte and an opaque payload:
/// the non-numeric events of one client.
public struct EventBlock: Equatable, Sendable {
    public var ts: [Int64]
    public var kinds: [UInt8]
    public var payloads: [[UInt8]]

    public init(ts: [Int64] = [], kinds: [UInt8] = [], payloads: [[UInt8]] = []) {
        self.ts = ts
        self.kinds = kinds
        self.payloads = payloads
    }
}

extension ChunkCodec {
    /// Version byte of event chunks (report chunks are version 1).
    public static let eventVersion: UInt8 = 2

    /// Encodes an event block: the same envelope as report chunks (version,
    /// CRC-32, zstd frame), columns inside: timestamps as delta-of-delta,
    /// kinds as bytes, payload lengths as varints, then the payload bytes
    /// back to back, where zstd finds the repeated JSON keys and ids.
    public mutating func encode(_ block: EventBlock) throws -> [UInt8] {
        precondition(block.kinds.count == block.ts.count && block.payloads.count == block.ts.count, "ragged event block")
        var w = ByteWriter(capacity: 1 << 14)
        w.varint(UInt64(block.ts.count))
        ChunkCodec.encodeTimestamps(block.ts, into: &w)
        w.bytes.append(contentsOf: block.kinds)
        for p in block.payloads { w.varint(UInt64(p.count)) }
        for p in block.payloads { w.bytes.append(contentsOf: p) }
        return try seal(w.bytes, version: ChunkCodec.eventVersion)
    }

    public func decodeEvents(_ blob: UnsafeRawBufferPointer) throws -> EventBlock {
        let payload = try open(blob, version: ChunkCodec.eventVersion)
        return try payload.withUnsafeBytes { bytes in
            var r = ByteReader(bytes)
            let count = try r.varint()
            guard count <= UInt64(bytes.count) else { throw CorruptData("implausible event count") }
            let n = Int(count)
            var block = EventBlock()
            block.ts = try ChunkCodec.decodeTimestamps(&r, count: n)
            guard r.position + n <= bytes.count else { throw CorruptData("unexpected end of data") }
            block.kinds = Array(bytes[r.position..<r.position + n])
            r.position += n
            var lengths: [Int] = []
            lengths.reserveCapacity(n)
            for _ in 0..<n {
                let length = try r.varint()
                guard length <= UInt64(bytes.count) else { throw CorruptData("implausible payload length") }
                lengths.append(Int(length))
            }
            block.payloads.reserveCapacity(n)
            for length in lengths {
                guard r.position + length <= bytes.count else { throw CorruptData("unexpected end of data") }
                block.payloads.append(Array(bytes[r.position..<r.position + length]))
                r.position += length
            }
            guard r.isAtEnd else { throw CorruptData("trailing bytes after the last payload") }
            return block
        }
    }

    public func decodeEvents(_ blob: [UInt8]) throws -> EventBlock {
        try blob.withUnsafeBytes { try decodeEvents($0) }
    }
}
