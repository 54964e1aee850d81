import CZstd

/// A failed zstd call, with zstd's own explanation.
public struct ZstdError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { "zstd: \(message)" }

    init(code: Int) { message = String(cString: ZSTD_getErrorName(code)) }
    init(_ message: String) { self.message = message }
}

/// One-shot zstd compression with a reusable context (creating a context per
/// chunk would dominate the cost of small chunks).
public final class ZstdCompressor {
    private let context: OpaquePointer
    public let level: Int32

    public init(level: Int32 = 9) {
        context = ZSTD_createCCtx()
        self.level = level
    }

    deinit { ZSTD_freeCCtx(context) }

    /// Appends the compressed frame of `input` to `output`.
    public func compress(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) throws {
        let bound = ZSTD_compressBound(input.count)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: bound))
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_compressCCtx(context, out.baseAddress! + start, bound, input.baseAddress, input.count, level)
        }
        if ZSTD_isError(written) != 0 {
            output.removeLast(bound)
            throw ZstdError(code: written)
        }
        output.removeLast(bound - written)
    }
}

/// One-shot decompression of a frame whose content size is recorded in it,
/// refusing anything larger than `limit` so a damaged or hostile chunk cannot
/// make us allocate without bound.
public final class ZstdDecompressor {
    private let context: OpaquePointer

    public init() { context = ZSTD_createDCtx() }
    deinit { ZSTD_freeDCtx(context) }

    public func decompress(_ input: UnsafeRawBufferPointer, limit: Int = 64 << 20) throws -> [UInt8] {
        let size = ZSTD_getFrameContentSize(input.baseAddress, input.count)
        if size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN {
            throw ZstdError("not a zstd frame with a known size")
        }
        guard size <= UInt64(limit) else { throw ZstdError("frame of \(size) bytes is over the limit") }
        if size > UInt64(ZstdDecompressor.trustedSize) { return try decompressGrowing(input, size: Int(size)) }
        var output = [UInt8](repeating: 0, count: Int(size))
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_decompressDCtx(context, out.baseAddress, out.count, input.baseAddress, input.count)
        }
        if ZSTD_isError(written) != 0 { throw ZstdError(code: written) }
        guard written == Int(size) else { throw ZstdError("frame is shorter than it says") }
        return output
    }

    /// A frame may claim up to this many bytes and get them at once; a
    /// larger one grows its buffer with what really comes out, so that a
    /// damaged size field (18 bytes claiming 2 GB) costs no 2 GB.
    static let trustedSize = 64 << 20

    private func decompressGrowing(_ input: UnsafeRawBufferPointer, size: Int) throws -> [UInt8] {
        let stream = ZstdStream()
        var output = [UInt8](repeating: 0, count: ZstdDecompressor.trustedSize)
        var inPos = 0, outPos = 0
        while true {
            let before = (inPos, outPos)
            try output.withUnsafeMutableBytes { out in
                try stream.decompress(input: input, inputPosition: &inPos, output: out, outputPosition: &outPos)
            }
            if stream.atFrameBoundary && inPos > 0 { break }
            if outPos == output.count {
                // One byte past the size: room for the frame's end to be
                // read, and a frame longer than it says shows.
                guard output.count <= size else { throw ZstdError("frame is longer than it says") }
                output += repeatElement(0, count: min(output.count, size + 1 - output.count))
            } else if before == (inPos, outPos) {
                throw ZstdError("frame is shorter than it says")
            }
        }
        guard outPos == size else { throw ZstdError("frame is shorter than it says") }
        output.removeLast(output.count - outPos)
        return output
    }
}

/// Streaming decompression of `.zst` files: memory stays bounded by the
/// caller's buffers whatever the file expands to.
public final class ZstdStream {
    private let context: OpaquePointer
    private var finishedFrame = true

    public init() { context = ZSTD_createDStream() }
    deinit { ZSTD_freeDStream(context) }

    /// Decompresses from `input` (advancing `inputPosition`) into `output`
    /// (from `outputPosition`, advancing it) until either is used up.
    public func decompress(
        input: UnsafeRawBufferPointer, inputPosition: inout Int,
        output: UnsafeMutableRawBufferPointer, outputPosition: inout Int
    ) throws {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: inputPosition)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: outputPosition)
        let rc = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
        if ZSTD_isError(rc) != 0 { throw ZstdError(code: rc) }
        finishedFrame = rc == 0
        inputPosition = inBuffer.pos
        outputPosition = outBuffer.pos
    }

    /// True when the last call ended exactly at the end of a frame; false at
    /// the end of input means the file was truncated.
    public var atFrameBoundary: Bool { finishedFrame }
}
