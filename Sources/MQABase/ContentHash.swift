/// A 128-bit content fingerprint for "have we ingested this file already?".
///
/// Not cryptographic (no CryptoKit on Linux, and no package can be fetched):
/// two independent 64-bit multiply-mix lanes over 8-byte words, plus the
/// length. Accidental collisions are out of reach; deliberate ones are not a
/// threat the store defends against, because re-ingesting is idempotent
/// anyway: the fingerprint only skips work.
public struct ContentHasher {
    private var a: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private var length: UInt64 = 0
    private var tail: UInt64 = 0
    private var tailCount: UInt64 = 0

    public init() {}

    /// SplitMix64's finaliser: a bijection that spreads every input bit.
    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 { SplitMix64.mix(x) }

    @inline(__always)
    private mutating func word(_ w: UInt64) {
        a = (a ^ ContentHasher.mix(w)) &* 0x0000_0100_0000_01B3 &+ 0x27D4_EB2F_1656_67C5
        b = ((b &+ w) ^ (b >> 29)) &* 0xFF51_AFD7_ED55_8CCD
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        // Finish a partial word left by the previous call first.
        while tailCount != 0 && i < bytes.count {
            tail |= UInt64(bytes[i]) << (tailCount * 8)
            tailCount += 1
            i += 1
            if tailCount == 8 { word(tail); tail = 0; tailCount = 0 }
        }
        while i + 8 <= bytes.count {
            word(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        while i < bytes.count {
            tail |= UInt64(bytes[i]) << (tailCount * 8)
            tailCount += 1
            i += 1
        }
    }

    /// The fingerprint as 32 hex digits.
    public func finalize() -> String {
        var h = self
        if h.tailCount > 0 { h.word(h.tail ^ (0xFF << 56)) }
        let x = ContentHasher.mix(h.a ^ h.length)
        let y = ContentHasher.mix(h.b ^ (h.length &* 0x9E37_79B9_7F4A_7C15) ^ x)
        func hex(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return hex(x) + hex(y)
    }
}
