#if canImport(Glibc)
import Glibc
#endif

/// A buffered writer to a file descriptor: stdout, stderr or a file. Output
/// is written in 64 KiB blocks, not per line.
public final class OutputSink {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []

    // Written from the main thread only: the CLI is single-threaded where it prints.
    nonisolated(unsafe) public static let standardOutput = OutputSink(fd: 1, owns: false)
    nonisolated(unsafe) public static let standardError = OutputSink(fd: 2, owns: false)

    init(fd: Int32, owns: Bool) {
        self.fd = fd
        ownsDescriptor = owns
        buffer.reserveCapacity(1 << 16)
    }

    /// Creates (or truncates) the file at `path`.
    public convenience init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
        self.init(fd: fd, owns: true)
    }

    deinit {
        flush()
        if ownsDescriptor { close(fd) }
    }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
    }

    public func write(bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func flush() {
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return  // a closed pipe: nothing more can be written
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Whether the descriptor is a terminal (progress bars and colour only then).
    public var isTerminal: Bool { isatty(fd) != 0 }
}

public struct OutputError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): cannot write: \(reason)" }
}
