import MQABase
import MQAModel

/// Report chunks until schema 2 (`ChunkEncoding.seriesVarint`), still read;
/// its column coding (decimal scale, the three modes, nulls) is shared by
/// `SeriesBucketEncoding`.
///
/// Layout of the zstd frame's content:
///
///     varint  count, varint column count
///     ts      zigzag first, zigzag first delta, then zigzag delta-of-delta
///     columns each: byte mode; mode 0 (decimal): byte scale, then values
///             as integers at that scale; mode 1 (binary): Double bits,
///             each XORed with the previous value's. Either mode first
///             carries a byte "has nulls" and, when set, a bitmap.
///             Decimal values: zigzag first, then zigzag deltas.
///             Mode 2 (exact decimals that share no 64-bit scale, such as
///             123456789.123456789 next to 1e-12): each value as zigzag
///             mantissa and zigzag exponent.
enum SeriesVarintEncoding {
    static func payload(_ block: SeriesBlock) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 14)
        w.varint(UInt64(block.ts.count))
        w.varint(UInt64(block.columns.count))
        encodeTimestamps(block.ts, into: &w)
        for column in block.columns { encodeColumn(column, into: &w) }
        return w.bytes
    }

    static func encodeTimestamps(_ ts: [Int64], into w: inout ByteWriter) {
        guard let first = ts.first else { return }
        w.signed(first)
        var previous = first
        var previousDelta: Int64 = 0
        for i in 1..<max(ts.count, 1) {
            let delta = ts[i] &- previous
            w.signed(i == 1 ? delta : delta &- previousDelta)
            previousDelta = delta
            previous = ts[i]
        }
    }

    /// Largest power-of-ten scale a decimal column may use.
    static let maxScale = 18

    static func encodeColumn(_ values: [DecimalNumber], into w: inout ByteWriter) {
        let hasNulls = values.contains { $0.isNull }
        if let (scale, scaled) = decimalScaled(values) {
            w.byte(0)
            w.byte(UInt8(scale))
            encodeNulls(values, hasNulls, into: &w)
            var previous: Int64 = 0
            for (i, v) in scaled.enumerated() {
                w.signed(i == 0 ? v : v &- previous)
                previous = v
            }
        } else if !values.contains(where: { $0.isBinary }) {
            // Binary mode would round these to Double: keep them exact.
            w.byte(2)
            encodeNulls(values, hasNulls, into: &w)
            for v in values where !v.isNull {
                w.signed(v.mantissa)
                w.signed(Int64(v.exponent))
            }
        } else {
            w.byte(1)
            encodeNulls(values, hasNulls, into: &w)
            var previous: UInt64 = 0
            for v in values {
                let bits = v.isNull ? previous : (v.doubleValue ?? 0).bitPattern
                w.uint64(bits ^ previous)
                previous = bits
            }
        }
    }

    static func encodeNulls(_ values: [DecimalNumber], _ hasNulls: Bool, into w: inout ByteWriter) {
        w.byte(hasNulls ? 1 : 0)
        guard hasNulls else { return }
        var byte: UInt8 = 0
        for (i, v) in values.enumerated() {
            if v.isNull { byte |= 1 << UInt8(i & 7) }
            if i & 7 == 7 { w.byte(byte); byte = 0 }
        }
        if values.count & 7 != 0 { w.byte(byte) }
    }

    /// The column as integers at one common decimal scale, or `nil` when some
    /// value is binary or would not fit 64 bits at that scale. Nulls repeat
    /// the previous value, so they cost a zero delta.
    static func decimalScaled(_ values: [DecimalNumber]) -> (Int, [Int64])? {
        var scale = 0
        for v in values where !v.isNull {
            if v.isBinary { return nil }
            if v.mantissa != 0 && -Int(v.exponent) > scale { scale = -Int(v.exponent) }
        }
        guard scale <= maxScale else { return nil }
        var out = [Int64]()
        out.reserveCapacity(values.count)
        var previous: Int64 = 0
        for v in values {
            if v.isNull { out.append(previous); continue }
            let shift = scale + Int(v.exponent)
            var m = v.mantissa
            if m != 0 {
                guard shift <= maxScale else { return nil }
                for _ in 0..<shift {
                    let (p, overflow) = m.multipliedReportingOverflow(by: 10)
                    if overflow { return nil }
                    m = p
                }
            }
            out.append(m)
            previous = m
        }
        return (scale, out)
    }

    static func decodePayload(_ bytes: UnsafeRawBufferPointer) throws -> SeriesBlock {
        var r = ByteReader(bytes)
        let count = try r.varint()
        let columnCount = try r.varint()
        // Every value takes at least one byte: a count beyond the payload is damage.
        guard count <= UInt64(bytes.count), columnCount <= 64 else { throw CorruptData("implausible chunk header") }
        let n = Int(count)
        let ts = try decodeTimestamps(&r, count: n)
        var columns = [[DecimalNumber]]()
        for _ in 0..<Int(columnCount) { columns.append(try decodeColumn(&r, count: n)) }
        guard r.isAtEnd else { throw CorruptData("trailing bytes after the last column") }
        return SeriesBlock(ts: ts, columns: columns)
    }

    static func decodeTimestamps(_ r: inout ByteReader, count n: Int) throws -> [Int64] {
        var ts = [Int64]()
        ts.reserveCapacity(n)
        guard n > 0 else { return ts }
        var previous = try r.signed()
        ts.append(previous)
        var delta: Int64 = 0
        for i in 1..<n {
            let v = try r.signed()
            delta = i == 1 ? v : delta &+ v
            previous = previous &+ delta
            ts.append(previous)
        }
        return ts
    }

    static func decodeColumn(_ r: inout ByteReader, count n: Int) throws -> [DecimalNumber] {
        let mode = try r.byte()
        guard mode <= 2 else { throw CorruptData("unknown column mode \(mode)") }
        let scale = mode == 0 ? Int(try r.byte()) : 0
        guard scale <= maxScale else { throw CorruptData("column scale \(scale) out of range") }
        let nulls = try decodeNulls(&r, count: n) ?? [Bool](repeating: false, count: n)
        var out = [DecimalNumber]()
        out.reserveCapacity(n)
        if mode == 0 {
            var previous: Int64 = 0
            for i in 0..<n {
                let v = try r.signed()
                previous = i == 0 ? v : previous &+ v
                out.append(nulls[i] ? .null : DecimalNumber(mantissa: previous, exponent: Int16(-scale)))
            }
        } else if mode == 2 {
            for i in 0..<n {
                if nulls[i] { out.append(.null); continue }
                let mantissa = try r.signed()
                let exponent = try r.signed()
                // The two marker exponents are not decimals: refuse them.
                guard exponent > Int64(Int16.min), exponent < Int64(Int16.max) else {
                    throw CorruptData("decimal exponent \(exponent) out of range")
                }
                out.append(DecimalNumber(mantissa: mantissa, exponent: Int16(exponent)))
            }
        } else {
            var previous: UInt64 = 0
            for i in 0..<n {
                previous ^= try r.uint64()
                out.append(nulls[i] ? .null : DecimalNumber(binary: Double(bitPattern: previous)))
            }
        }
        return out
    }

    /// The null flags written by `encodeNulls`; `nil` when there are none.
    static func decodeNulls(_ r: inout ByteReader, count n: Int) throws -> [Bool]? {
        guard try r.byte() != 0 else { return nil }
        guard (n + 7) / 8 <= r.bytes.count - r.position else { throw CorruptData("null bitmap runs past the column") }
        var nulls = [Bool](repeating: false, count: n)
        var byte: UInt8 = 0
        for i in 0..<n {
            if i & 7 == 0 { byte = try r.byte() }
            nulls[i] = byte & (1 << UInt8(i & 7)) != 0
        }
        return nulls
    }
}
