#if canImport(Glibc)
import Glibc
#endif

/// A buffered writer to stdout, stderr or a file. Output is written in
/// 64 KiB blocks, not per line.
///
/// Nothing it writes can look whole when it is not: the first failed write
/// is remembered (later output is dropped) and `close()` throws it, so a
/// command can never exit 0 over a full disk. A file sink writes to a
/// temporary name beside its target and renames it into place only in
/// `close()`, after every byte is on disk; a sink dropped without `close()`
/// (the command failed) removes its temporary file, leaving the target as
/// it was.
public final class OutputSink {
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// What error messages call it: the path, or "standard output".
    public let name: String
    private var buffer: [UInt8] = []
    /// For a file sink: the temporary file and the target it becomes.
    private let temporary: AtomicFile?
    private var closed = false
    /// The first write error; everything after it is dropped.
    public private(set) var failure: OutputError?

    // Written from the main thread only: the CLI is single-threaded where it prints.
    nonisolated(unsafe) public static let standardOutput = OutputSink(fd: 1, name: "standard output")
    nonisolated(unsafe) public static let standardError = OutputSink(fd: 2, name: "standard error")

    init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
        ownsDescriptor = false
        temporary = nil
        buffer.reserveCapacity(Self.bufferBytes)
    }

    /// A sink that becomes the file at `path` when closed (see the type's
    /// doc): nothing appears at `path` before then.
    public convenience init(path: String) throws {
        self.init(file: try AtomicFile(path: path))
    }

    /// A sink that becomes `file` when closed (a file made in a directory
    /// by descriptor: a report site's page).
    public init(file: AtomicFile) {
        temporary = file
        fd = file.fd
        name = file.path
        ownsDescriptor = true
        buffer.reserveCapacity(Self.bufferBytes)
    }

    deinit {
        if !closed {
            flush()
            if let temporary { temporary.discard() }
        }
    }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
    }

    public func write(bytes: UnsafeRawBufferPointer) {
        if failure != nil { return }
        // A piece as large as the buffer goes out as it is, after what the
        // buffer holds: copied in, a report's 17 MB section stayed as the
        // buffer's capacity to the end.
        if bytes.count >= Self.bufferBytes {
            flush()
            if failure == nil, let error = writeAll(fd, bytes) { failure = OutputError(path: name, reason: error) }
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferBytes { flush() }
    }

    /// Bytes held before they are written.
    static let bufferBytes = 1 << 16

    /// Writes out the buffer. A failure is kept for `close()`/`check()`.
    public func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            if let error = writeAll(fd, raw) { failure = OutputError(path: name, reason: error) }
        }
    }

    /// Fails the output for its producer's reason (what it was writing
    /// could not be read in full): what was not written yet is dropped,
    /// and `check()`/`close()` throw it, so a report cut short never
    /// stands as a whole one. A failure already kept stays the one told.
    public func fail(_ reason: String) {
        if failure == nil { failure = OutputError(path: name, reason: reason) }
    }

    /// Flushes and throws the first write error, if any (for stdout, which
    /// is never closed).
    public func check() throws {
        flush()
        if let failure { throw failure }
    }

    /// Flushes, and for a file: syncs, closes and renames it into place.
    /// Throws the first write error; then the target is left untouched.
    public func close() throws {
        guard !closed else { return }
        flush()
        closed = true
        guard let temporary else {
            if let failure { throw failure }
            return
        }
        if let failure {
            temporary.discard()
            throw failure
        }
        try temporary.commit()
    }

    /// Whether the descriptor is a terminal (progress bars and colour only then).
    public var isTerminal: Bool { isatty(fd) != 0 }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR; the
/// error text on failure.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> String? {
    var offset = 0
    while offset < bytes.count {
        let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        if n == 0 { return "write made no progress" }
        offset += n
    }
    return nil
}

/// A write to an output failed (full disk, closed device, ...).
public struct OutputError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}
