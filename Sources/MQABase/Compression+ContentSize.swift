extension Compression {
    /// The content size a zstd frame header records (`head`: the frame's
    /// first bytes, 18 are enough), or nil: not a zstd frame (a skippable
    /// frame first, as `pzstd` writes, included), or a frame that does not
    /// record it (one compressed from a pipe).
    public static func zstdContentSize(_ head: UnsafeRawBufferPointer) -> Int? {
        guard head.count >= 5, detect(head) == .zstd, head[0] == 0x28 else { return nil }
        let descriptor = head[4]
        let singleSegment = descriptor & 0x20 != 0
        let fieldSize = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        guard fieldSize > 0 else { return nil }
        let dictionaryBytes = [0, 1, 2, 4][Int(descriptor & 3)]
        let at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes
        guard head.count >= at + fieldSize else { return nil }
        var value: UInt64 = 0
        for k in (0..<fieldSize).reversed() { value = value << 8 | UInt64(head[at + k]) }
        if fieldSize == 2 { value += 256 }  // the 2-byte field counts from 256
        return value > UInt64(Int.max) ? nil : Int(value)
    }

    /// The content size a gzip file's last 4 bytes record (ISIZE: its last
    /// member's size, modulo 4 GiB): a lower bound of a single member's,
    /// enough to tell how much a small file holds.
    public static func gzipContentSize(trailer: UnsafeRawBufferPointer) -> Int? {
        guard trailer.count == 4 else { return nil }
        return Int(trailer[0]) | Int(trailer[1]) << 8 | Int(trailer[2]) << 16 | Int(trailer[3]) << 24
    }
}
