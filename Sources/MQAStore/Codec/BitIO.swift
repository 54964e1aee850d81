import MQABase
import MQAModel

/// Packs values of any width up to 64 bits, least significant bit first,
/// into bytes: the raw low bits of bucketed integers (`BucketCoding`) and
/// boolean columns, which zstd cannot shrink and should not see.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var pending = 0  // bits in `accumulator`, always < 8 between calls

    init() {}

    /// Appends the low `count` bits of `value` (0…64).
    @inline(__always)
    mutating func write(_ value: UInt64, bits count: Int) {
        guard count <= 56 else { return writeWide(value, count) }
        guard count > 0 else { return }
        // pending < 8, so the accumulator never needs more than 64 bits.
        accumulator |= (value & ((1 << UInt64(count)) - 1)) << UInt64(pending)
        pending += count
        while pending >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            pending -= 8
        }
    }

    private mutating func writeWide(_ value: UInt64, _ count: Int) {
        write(value, bits: 32)
        write(value >> 32, bits: count - 32)
    }

    @inline(__always)
    mutating func write(_ bit: Bool) { write(bit ? 1 : 0, bits: 1) }

    /// The bytes written, the last one padded with zero bits.
    mutating func finish() -> [UInt8] {
        if pending > 0 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator = 0
            pending = 0
        }
        return bytes
    }
}

/// Reads what `BitWriter` wrote, refusing to read past the end: stored data
/// may be damaged.
struct BitReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0  // next byte to load
    private var accumulator: UInt64 = 0
    private var available = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next `count` bits (0…64) as an integer.
    @inline(__always)
    mutating func read(bits count: Int) throws -> UInt64 {
        guard count > 0 else { return 0 }
        guard count <= 56 else { return try readWide(count) }
        if available < count { try refill(count) }
        let v = accumulator & ((1 << UInt64(count)) - 1)
        accumulator >>= UInt64(count)
        available -= count
        return v
    }

    /// Loads whole bytes until at least `count` (≤ 56) bits are available:
    /// eight at once while the buffer has them.
    @inline(__always)
    private mutating func refill(_ count: Int) throws {
        if position + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let take = (63 - available) >> 3
            accumulator |= word << UInt64(available)
            available += take * 8
            position += take
            accumulator &= (1 << UInt64(available)) - 1
            return
        }
        while available < count {
            guard position < bytes.count else { throw CorruptData("bit stream ends early") }
            accumulator |= UInt64(bytes[position]) << UInt64(available)
            position += 1
            available += 8
        }
    }

    private mutating func readWide(_ count: Int) throws -> UInt64 {
        let low = try read(bits: 32)
        return low | (try read(bits: count - 32)) << 32
    }

    @inline(__always)
    mutating func read() throws -> Bool { try read(bits: 1) != 0 }

    /// True when every byte was used and the padding is zero bits: a
    /// stream with bytes or set bits left over was not written this way.
    var isAtEnd: Bool { position == bytes.count && available < 8 && accumulator == 0 }
}
