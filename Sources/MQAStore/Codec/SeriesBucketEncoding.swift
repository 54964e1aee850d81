import MQABase
import MQAModel

/// Report chunks (`ChunkEncoding.seriesBucketed`): the columns of
/// `SeriesVarintEncoding`, with the integers bucket-coded (`BucketCoding`)
/// and each column a section of its own (`SectionWriter`).
///
///     varint  count n, varint column count
///     section timestamps: zigzag first; zigzag base (the median interval);
///             then n−1 symbols of zigzag(interval − base)
///     section per column: byte mode
///             mode 0: byte scale, nulls (byte flag, bitmap when set), then
///                     n symbols: zigzag first, then zigzag deltas
///             mode 1, 2: the whole column as in `SeriesVarintEncoding`
///     section raw bits of every symbol above, in that order (stored)
///
/// Reports come every ~2 s with ±100 ms of jitter: the interval minus its
/// median is what varies, and its low bits are noise. Delta-of-delta
/// doubled that noise (1.39 bytes a timestamp; this takes 1.08).
enum SeriesBucketEncoding {
    static func encode(_ block: SeriesBlock, sections: SectionWriter, into out: inout [UInt8]) throws {
        let n = block.ts.count
        var header = ByteWriter()
        header.varint(UInt64(n))
        header.varint(UInt64(block.columns.count))
        out += header.bytes
        var bits = BitWriter()
        var symbols: [UInt8] = []
        symbols.reserveCapacity(n + 16)
        encodeTimestamps(block.ts, symbols: &symbols, bits: &bits)
        try sections.append(symbols, to: &out)
        for column in block.columns {
            symbols.removeAll(keepingCapacity: true)
            encodeColumn(column, symbols: &symbols, bits: &bits)
            try sections.append(symbols, to: &out)
        }
        try sections.append(bits.finish(), to: &out, compressible: false)
    }

    static func encodeTimestamps(_ ts: [Int64], symbols: inout [UInt8], bits: inout BitWriter) {
        guard let first = ts.first else { return }
        var w = ByteWriter()
        w.signed(first)
        guard ts.count > 1 else {
            symbols += w.bytes
            return
        }
        let base = medianInterval(ts)
        w.signed(base)
        symbols += w.bytes
        ts.withUnsafeBufferPointer { t in
            BucketCoding.write(count: t.count - 1, symbols: &symbols, bits: &bits) { i in
                BucketCoding.zigzag(t[i + 1] &- t[i] &- base)
            }
        }
    }

    /// The median of up to 63 evenly spread intervals: any base decodes
    /// right, one near the middle keeps the symbols small, and sorting every
    /// interval of every chunk cost 1 % of ingest.
    static func medianInterval(_ ts: [Int64]) -> Int64 {
        let intervals = ts.count - 1
        let step = max(1, intervals / 63)
        var sample: [Int64] = []
        sample.reserveCapacity(64)
        for i in stride(from: 1, through: intervals, by: step) { sample.append(ts[i] &- ts[i - 1]) }
        sample.sort()
        return sample[sample.count / 2]
    }

    static func encodeColumn(_ values: [DecimalNumber], symbols: inout [UInt8], bits: inout BitWriter) {
        guard let (scale, scaled) = SeriesVarintEncoding.decimalScaled(values) else {
            // Binary or unscalable decimals: rare, kept exactly as before.
            var w = ByteWriter()
            SeriesVarintEncoding.encodeColumn(values, into: &w)
            symbols += w.bytes
            return
        }
        var w = ByteWriter()
        w.byte(0)
        w.byte(UInt8(scale))
        SeriesVarintEncoding.encodeNulls(values, values.contains { $0.isNull }, into: &w)
        symbols += w.bytes
        scaled.withUnsafeBufferPointer { v in
            BucketCoding.write(count: v.count, symbols: &symbols, bits: &bits) { i in
                BucketCoding.zigzag(v[i] &- (i == 0 ? 0 : v[i - 1]))
            }
        }
    }

    static func decode(_ body: UnsafeRawBufferPointer, sections reader: SectionReader) throws -> SeriesBlock {
        var sections = reader
        var r = ByteReader(body)
        let count = try r.varint()
        let columnCount = try r.varint()
        guard columnCount <= 64 else { throw CorruptData("implausible column count \(columnCount)") }
        let tsSection = try sections.next(&r)
        // Every report but the first takes a symbol byte in the timestamps.
        guard count <= UInt64(tsSection.count) + 1 else { throw CorruptData("implausible report count \(count)") }
        let n = Int(count)
        var columnSections: [[UInt8]] = []
        for _ in 0..<columnCount { columnSections.append(try sections.next(&r)) }
        let rawBits = try sections.next(&r)
        guard r.isAtEnd else { throw CorruptData("trailing bytes after the last section") }
        return try rawBits.withUnsafeBytes { raw in
            var bits = BitReader(raw)
            let ts = try tsSection.withUnsafeBytes { bytes in
                var s = ByteReader(bytes)
                let ts = try decodeTimestamps(&s, count: n, bits: &bits)
                guard s.isAtEnd else { throw CorruptData("trailing bytes after the timestamps") }
                return ts
            }
            var columns: [[DecimalNumber]] = []
            for section in columnSections {
                columns.append(try section.withUnsafeBytes { bytes in
                    var s = ByteReader(bytes)
                    let column = try decodeColumn(&s, count: n, bits: &bits)
                    guard s.isAtEnd else { throw CorruptData("trailing bytes after a column") }
                    return column
                })
            }
            guard bits.isAtEnd else { throw CorruptData("raw bits left over") }
            return SeriesBlock(ts: ts, columns: columns)
        }
    }

    static func decodeTimestamps(_ s: inout ByteReader, count n: Int, bits: inout BitReader) throws -> [Int64] {
        guard n > 0 else { return [] }
        var t = try s.signed()
        guard n > 1 else { return [t] }
        let base = try s.signed()
        let symbols = try BucketCoding.take(n - 1, from: &s)
        // Filled through the buffer: an append per value, with its checks,
        // cost about as much as the decoding.
        return try [Int64](unsafeUninitializedCapacity: n) { out, initialized in
            out.initializeElement(at: 0, to: t)
            initialized = 1
            for symbol in symbols {
                t = t &+ base &+ BucketCoding.unzigzag(try BucketCoding.value(of: symbol, bits: &bits))
                out.initializeElement(at: initialized, to: t)
                initialized += 1
            }
        }
    }

    static func decodeColumn(_ s: inout ByteReader, count n: Int, bits: inout BitReader) throws -> [DecimalNumber] {
        guard s.position < s.bytes.count, s.bytes[s.position] == 0 else {
            return try SeriesVarintEncoding.decodeColumn(&s, count: n)
        }
        s.position += 1
        let scale = Int(try s.byte())
        guard scale <= SeriesVarintEncoding.maxScale else { throw CorruptData("column scale \(scale) out of range") }
        let nulls = try SeriesVarintEncoding.decodeNulls(&s, count: n)
        let symbols = try BucketCoding.take(n, from: &s)
        let exponent = Int16(-scale)
        var previous: Int64 = 0
        return try [DecimalNumber](unsafeUninitializedCapacity: n) { out, initialized in
            if let nulls {
                for i in 0..<n {
                    previous = previous &+ BucketCoding.unzigzag(try BucketCoding.value(of: symbols[i], bits: &bits))
                    out.initializeElement(at: i, to: nulls[i] ? .null : DecimalNumber(mantissa: previous, exponent: exponent))
                    initialized = i + 1
                }
            } else {
                for i in 0..<n {
                    previous = previous &+ BucketCoding.unzigzag(try BucketCoding.value(of: symbols[i], bits: &bits))
                    out.initializeElement(at: i, to: DecimalNumber(mantissa: previous, exponent: exponent))
                    initialized = i + 1
                }
            }
        }
    }
}
