import CZlib

/// A failed inflate, with zlib's explanation.
public struct GzipError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { "gzip: \(message)" }
    init(_ message: String) { self.message = message }
}

/// Streaming gunzip, the same shape as `ZstdStream`: memory stays bounded
/// by the caller's buffers (plus zlib's 32 KiB window) whatever the file
/// expands to. Concatenated gzip members are read one after the other,
/// as `gzip -d` does.
public final class GzipStream {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finishedMember = true
    private var started = false

    public init() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 16: a 32 KiB window, gzip framing only (no zlib or raw deflate).
        let rc = inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "inflateInit2 failed: \(rc)")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates from `input` (advancing `inputPosition`) into `output`
    /// (from `outputPosition`, advancing it) until either is used up or a
    /// member ends.
    public func decompress(
        input: UnsafeRawBufferPointer, inputPosition: inout Int,
        output: UnsafeMutableRawBufferPointer, outputPosition: inout Int
    ) throws {
        guard inputPosition < input.count, outputPosition < output.count else { return }
        if finishedMember && started {
            // The next member of a concatenated file.
            guard inflateReset(stream) == Z_OK else { throw GzipError("cannot reset the stream") }
        }
        started = true
        let inBase = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: inBase + inputPosition)
        stream.pointee.avail_in = UInt32(clamping: input.count - inputPosition)
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self) + outputPosition
        stream.pointee.avail_out = UInt32(clamping: output.count - outputPosition)
        let availIn = Int(stream.pointee.avail_in)
        let availOut = Int(stream.pointee.avail_out)
        let rc = inflate(stream, Z_NO_FLUSH)
        inputPosition += availIn - Int(stream.pointee.avail_in)
        outputPosition += availOut - Int(stream.pointee.avail_out)
        switch rc {
        case Z_OK, Z_BUF_ERROR:
            finishedMember = false
        case Z_STREAM_END:
            finishedMember = true
        default:
            let why = stream.pointee.msg.map { String(cString: $0) } ?? "error \(rc)"
            throw GzipError(why)
        }
    }

    /// True when the last call ended exactly at the end of a member; false
    /// at the end of input means the file was truncated.
    public var atFrameBoundary: Bool { finishedMember }
}

/// The compression of a byte stream, told by its first bytes (the file name
/// may lie: a dump saved as `.txt` can be gzip).
public enum Compression: Sendable, Equatable {
    case none, zstd, gzip

    /// zstd frames start `28 B5 2F FD`, gzip members `1F 8B`. A zstd
    /// stream may also start with a skippable frame (magic `5X 2A 4D 18`,
    /// 0x184D2A50...0x184D2A5F little-endian): `pzstd` writes one before
    /// each frame to record its size. No text starts with either (0x18 and
    /// 0x1F are control bytes, 0x8B and 0xB5 are not UTF-8 lead bytes).
    public static func detect(_ head: UnsafeRawBufferPointer) -> Compression {
        if head.count >= 4 && head[0] == 0x28 && head[1] == 0xB5 && head[2] == 0x2F && head[3] == 0xFD { return .zstd }
        if head.count >= 4 && head[0] & 0xF0 == 0x50 && head[1] == 0x2A && head[2] == 0x4D && head[3] == 0x18 { return .zstd }
        if head.count >= 2 && head[0] == 0x1F && head[1] == 0x8B { return .gzip }
        return .none
    }

    /// Whether `head`, the first bytes of a content (64 are plenty), cannot
    /// start a text file: another compression (xz, lz4, bzip2, zip...) or a
    /// binary file given by mistake. Only bytes that text never holds
    /// count: a NUL, or two C0 control bytes other than whitespace (tab,
    /// newline, vertical tab, form feed, return) and ESC (a log captured
    /// with colours). Bytes that are not UTF-8 never count by themselves:
    /// a Latin-1 log is text, and its lines get their own rejects.
    public static func looksBinary(_ head: UnsafeRawBufferPointer) -> Bool {
        var controls = 0
        for byte in head {
            if byte == 0 { return true }
            if byte < 0x20 && !(0x09...0x0D).contains(byte) && byte != 0x1B { controls += 1 }
        }
        return controls >= 2
    }

    public var name: String {
        switch self {
        case .none: "plain"
        case .zstd: "zstd"
        case .gzip: "gzip"
        }
    }
}

/// `ZstdStream` and `GzipStream` behind one face, for readers that take either.
public protocol StreamDecompressor: AnyObject {
    func decompress(
        input: UnsafeRawBufferPointer, inputPosition: inout Int,
        output: UnsafeMutableRawBufferPointer, outputPosition: inout Int) throws
    var atFrameBoundary: Bool { get }
}

extension ZstdStream: StreamDecompressor {}
extension GzipStream: StreamDecompressor {}
