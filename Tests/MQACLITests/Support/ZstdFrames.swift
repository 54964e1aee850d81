/// Hand-built zstd frames (RFC 8878), so that tests can make a `.zst` that
/// expands to gigabytes from a few kilobytes, or one cut short, without a
/// compressor or a big buffer.
enum ZstdFrame {
    /// Frame header: magic, descriptor (no content size, not single
    /// segment, no checksum, no dictionary), window descriptor 2^17.
    static let header: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38]
    static let maxBlock = 128 * 1024

    static func blockHeader(last: Bool, type: UInt32, size: Int) -> [UInt8] {
        let v = (UInt32(size) << 3) | (type << 1) | (last ? 1 : 0)
        return [UInt8(v & 0xff), UInt8((v >> 8) & 0xff), UInt8((v >> 16) & 0xff)]
    }

    /// Raw (stored) blocks holding `bytes` as they are.
    static func raw(_ bytes: [UInt8], last: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        repeat {
            let n = min(maxBlock, bytes.count - i)
            out += blockHeader(last: last && i + n == bytes.count, type: 0, size: n)
            out += bytes[i..<i + n]
            i += n
        } while i < bytes.count
        return out
    }

    /// RLE blocks: `byte` repeated `count` times, 4 bytes per 128 KiB.
    static func rle(_ byte: UInt8, count: Int, last: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var left = count
        while left > 0 {
            let n = min(maxBlock, left)
            left -= n
            out += blockHeader(last: last && left == 0, type: 1, size: n)
            out.append(byte)
        }
        return out
    }

    /// A whole frame of `prefix`, then `byte` × `count`, then `suffix`.
    static func bomb(prefix: String, byte: UInt8, count: Int, suffix: String) -> [UInt8] {
        header + raw(Array(prefix.utf8), last: false) + rle(byte, count: count, last: false)
            + raw(Array(suffix.utf8), last: true)
    }

    /// A frame holding `text` in raw blocks.
    static func stored(_ text: String) -> [UInt8] { header + raw(Array(text.utf8), last: true) }
}
