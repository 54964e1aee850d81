import MQABase
import MQAModel

/// Integers as a byte "bucket" symbol plus raw low bits, so that zstd's
/// Huffman stage sees a small alphabet whose statistics it can exploit, and
/// the bits no model predicts (the low bits of a jittery 2 s interval) go
/// to a `BitWriter` uncompressed.
///
/// Values below 16 are their own symbol. A larger value of bit length L
/// (5…64) has the symbol 16 + 4·(L−5) + the two bits after its leading one,
/// followed by its L−3 low bits in the bit stream; symbols reach at most
/// 255. On the benchmark corpus this takes report columns from 6.0 to
/// 5.4 bytes a report against varints in one zstd frame.
enum BucketCoding {
    static let direct: UInt64 = 16

    /// The symbol of `value`, and how many of its low bits go to the bit
    /// stream (0 for a value that is its own symbol).
    @inline(__always)
    static func code(_ value: UInt64) -> (symbol: UInt8, lowBits: Int) {
        if value < direct { return (UInt8(value), 0) }
        let length = 64 - value.leadingZeroBitCount
        let top = (value >> UInt64(length - 3)) & 3
        return (UInt8(16 + 4 * (length - 5) + Int(top)), length - 3)
    }

    /// Writes `count` values, the i-th `value(i)`, their symbols appended
    /// at once: appended one by one, each with its own uniqueness and
    /// capacity check, they cost about as much as the coding itself.
    @inline(__always)
    static func write(count: Int, symbols: inout [UInt8], bits: inout BitWriter, _ value: (Int) -> UInt64) {
        guard count > 0 else { return }
        let start = symbols.count
        symbols.append(contentsOf: repeatElement(0, count: count))
        symbols.withUnsafeMutableBufferPointer { out in
            for i in 0..<count {
                let v = value(i)
                let (symbol, lowBits) = code(v)
                out[start + i] = symbol
                bits.write(v, bits: lowBits)
            }
        }
    }

    @inline(__always)
    static func read(_ symbols: inout ByteReader, bits: inout BitReader) throws -> UInt64 {
        try value(of: try symbols.byte(), bits: &bits)
    }

    /// The value of one symbol, taking its low bits from `bits`.
    @inline(__always)
    static func value(of symbol: UInt8, bits: inout BitReader) throws -> UInt64 {
        let s = UInt64(symbol)
        if s < direct { return s }
        let length = Int((s - 16) >> 2) + 5
        let top = (s - 16) & 3
        let low = try bits.read(bits: length - 3)
        return 1 << UInt64(length - 1) | top << UInt64(length - 3) | low
    }

    /// The next `count` symbols of `symbols`: bounds are checked once, not
    /// per value (decoding a meeting reads ~100 k of them).
    @inline(__always)
    static func take(_ count: Int, from symbols: inout ByteReader) throws -> UnsafeRawBufferPointer {
        guard count <= symbols.bytes.count - symbols.position else { throw CorruptData("unexpected end of data") }
        defer { symbols.position += count }
        return UnsafeRawBufferPointer(rebasing: symbols.bytes[symbols.position..<symbols.position + count])
    }

    @inline(__always)
    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    @inline(__always)
    static func unzigzag(_ u: UInt64) -> Int64 { Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1) }
}
