#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel

/// Gives each distinct byte string a small index, in order of first
/// appearance: the per-chunk dictionaries of `EventColumnarEncoding`.
/// Open addressing over one shared buffer, so interning a slice of a
/// payload allocates nothing (a `[ [UInt8]: Int ]` built a key array per
/// lookup, ~1.3 M of them per benchmark ingest).
struct ByteInterner {
    private(set) var storage: [UInt8] = []
    /// Entry i is `storage[starts[i]..<starts[i + 1]]`.
    private(set) var starts: [Int] = [0]
    private var hashes: [UInt32] = []
    private var slots: [Int32]

    init() { slots = [Int32](repeating: -1, count: 64) }

    var count: Int { hashes.count }

    func entry(_ i: Int) -> ArraySlice<UInt8> { storage[starts[i]..<starts[i + 1]] }

    /// The index of `bytes`, adding it when new.
    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Int {
        let h = ByteInterner.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(h) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { break }
            if hashes[index] == h && equals(index, bytes) { return index }
            slot = (slot + 1) & mask
        }
        let index = hashes.count
        storage.append(contentsOf: bytes)
        starts.append(storage.count)
        hashes.append(h)
        slots[slot] = Int32(index)
        if hashes.count * 2 > slots.count { grow() }
        return index
    }

    /// Eight bytes per step (a byte-at-a-time FNV-1a was most of the cost
    /// of interning payload-sized strings), then a final mix so that the
    /// low bits, which pick the slot, depend on every byte.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let n = bytes.count
        var h = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
        var i = 0
        while i + 8 <= n {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        if i < n {
            var w: UInt64 = 0
            for j in i..<n { w |= UInt64(bytes[j]) << UInt64(8 * (j - i)) }
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
        }
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return UInt32(truncatingIfNeeded: h)
    }

    mutating func intern(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBytes { intern($0) } }

    private func equals(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = starts[index]
        guard starts[index + 1] - start == bytes.count else { return false }
        return storage.withUnsafeBytes { s in
            bytes.count == 0 || memcmp(s.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0
        }
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, h) in hashes.enumerated() {
            var slot = Int(h) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index)
        }
    }
}
