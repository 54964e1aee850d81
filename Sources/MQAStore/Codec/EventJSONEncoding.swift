import MQABase
import MQAModel

/// Event chunks until schema 2 (`ChunkEncoding.eventsJSON`), still read.
///
/// Layout of the zstd frame's content: timestamps as delta-of-delta (as in
/// `SeriesVarintEncoding`), kinds as bytes, payload lengths as varints,
/// then the canonical payload JSON back to back.
enum EventJSONEncoding {
    static func payload(_ block: EventBlock) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 14)
        w.varint(UInt64(block.ts.count))
        SeriesVarintEncoding.encodeTimestamps(block.ts, into: &w)
        w.bytes.append(contentsOf: block.kinds)
        for i in 0..<block.count { w.varint(UInt64(block.payloadRange(i).count)) }
        w.bytes.append(contentsOf: block.payloadBytes)
        return w.bytes
    }

    static func decodePayload(_ bytes: UnsafeRawBufferPointer) throws -> EventBlock {
        var r = ByteReader(bytes)
        let count = try r.varint()
        guard count <= UInt64(bytes.count) else { throw CorruptData("implausible event count") }
        let n = Int(count)
        let ts = try SeriesVarintEncoding.decodeTimestamps(&r, count: n)
        guard r.position + n <= bytes.count else { throw CorruptData("unexpected end of data") }
        let kinds = Array(bytes[r.position..<r.position + n])
        r.position += n
        var lengths: [Int] = []
        lengths.reserveCapacity(n)
        for _ in 0..<n {
            let length = try r.varint()
            guard length <= UInt64(bytes.count) else { throw CorruptData("implausible payload length") }
            lengths.append(Int(length))
        }
        var block = EventBlock()
        block.reserveCapacity(n, payloadBytes: bytes.count - r.position)
        for (i, length) in lengths.enumerated() {
            guard r.position + length <= bytes.count else { throw CorruptData("unexpected end of data") }
            block.append(ts: ts[i], kind: kinds[i], payload: UnsafeRawBufferPointer(rebasing: bytes[r.position..<r.position + length]))
            r.position += length
        }
        guard r.isAtEnd else { throw CorruptData("trailing bytes after the last payload") }
        return block
    }
}
