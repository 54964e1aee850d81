#if canImport(Glibc)
import Glibc
#endif

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
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
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
