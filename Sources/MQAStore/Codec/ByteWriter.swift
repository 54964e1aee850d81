import MQABase
import MQAModel

/// Appends little-endian and LEB128 varint encodings to a byte array.
public struct ByteWriter {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    @inline(__always)
    public mutating func byte(_ b: UInt8) { bytes.append(b) }

    @inline(__always)
    public mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Zigzag then varint, so small negative numbers stay small.
    @inline(__always)
    public mutating func signed(_ value: Int64) {
        varint(BucketCoding.zigzag(value))
    }

    public mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}

/// A decoding failure: the data is damaged or not what it claims to be.
public struct CorruptData: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Reads what `ByteWriter` wrote, with bounds checks on every byte: stored
/// data may be damaged, and damage must be an error, never a crash.
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    public var position = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var isAtEnd: Bool { position >= bytes.count }

    @inline(__always)
    public mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw CorruptData("unexpected end of data") }
        defer { position += 1 }
        return bytes[position]
    }

    @inline(__always)
    public mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw CorruptData("unexpected end of data") }
            let b = bytes[position]
            position += 1
            guard shift < 64 else { throw CorruptData("varint too long") }
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    @inline(__always)
    public mutating func signed() throws -> Int64 {
        let v = try varint()
        return BucketCoding.unzigzag(v)
    }

    public mutating func uint32() throws -> UInt32 {
        var v: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) { v |= UInt32(try byte()) << UInt32(shift) }
        return v
    }

    public mutating func uint64() throws -> UInt64 {
        var v: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { v |= UInt64(try byte()) << UInt64(shift) }
        return v
    }
}
