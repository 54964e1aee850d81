import CZlib
import MQABase
import MQAModel

/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), to detect damaged chunks.
/// zlib's: it reads a word at a time, where a byte-wise table loop was a
/// tenth of all decoding time.
public enum CRC32 {
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        var crc = crc32(0, nil, 0)
        var offset = 0
        // zlib takes a 32-bit length.
        while offset < bytes.count {
            let length = min(bytes.count - offset, 1 << 30)
            crc = crc32(crc, (base + offset).assumingMemoryBound(to: UInt8.self), uInt(length))
            offset += length
        }
        return UInt32(crc)
    }
}
