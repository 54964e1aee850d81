#if canImport(Glibc)
import Glibc
#endif
import MQAStore

/// Input failures that stop one file (not the lines of it: those are rejects).
public enum InputError: Error, CustomStringConvertible {
    case cannotOpen(String, String)
    case isDirectory(String)
    case readFailed(String, String)
    case badCompression(String, String)
    /// A stats dump that is not valid in its format (rejected whole).
    case invalidDump(String, String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let why): "\(path): cannot open: \(why)"
        case .isDirectory(let path): "\(path): is a directory (give the log files inside it, e.g. \(path)/*.ndjson)"
        case .readFailed(let path, let why): "\(path): read failed: \(why)"
        case .badCompression(let path, let why): "\(path): \(why)"
        case .invalidDump(let path, let why): "\(path): \(why)"
        }
    }
}

/// Streams an input (`-` for stdin; zstd or gzip, told by their magic
/// bytes, decompressed on the fly) as
/// lines, with bounded memory whatever the input's size: a fixed read
/// buffer, and a line buffer that never grows past the longest allowed line.
public final class LineReader {
    public let path: String
    private let fd: Int32
    /// How the input is compressed, from its first bytes (not its name).
    public private(set) var compression: Compression = .none
    /// Bytes read ahead to tell the compression (and the content format),
    /// handed out again before the rest of the input.
    private var pending: [UInt8] = []
    /// Bytes read from the input so far (compressed bytes for `.zst`).
    public private(set) var bytesRead = 0
    /// The input's size, when it is a regular file.
    public let size: Int?

    public init(path: String) throws {
        self.path = path
        if path == "-" {
            fd = 0
            size = nil
            compression = try readAhead(4).withUnsafeBytes { Compression.detect($0) }
            return
        }
        var st = stat()
        guard stat(path, &st) == 0 else { throw InputError.cannotOpen(path, String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw InputError.isDirectory(path) }
        let opened = open(path, O_RDONLY)
        guard opened >= 0 else { throw InputError.cannotOpen(path, String(cString: strerror(errno))) }
        fd = opened
        size = (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
        compression = try readAhead(4).withUnsafeBytes { Compression.detect($0) }
    }

    /// Reads until `count` bytes are pending (fewer at the end of input);
    /// returns them, still pending.
    @discardableResult
    func readAhead(_ count: Int) throws -> [UInt8] {
        while pending.count < count {
            var chunk = [UInt8](repeating: 0, count: count - pending.count)
            let n = try chunk.withUnsafeMutableBytes { try readFD($0) }
            if n == 0 { break }
            pending += chunk[0..<n]
        }
        return pending
    }

    deinit { if fd != 0 { close(fd) } }

    func readRaw(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !pending.isEmpty {
            let n = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
            pending.removeFirst(n)
            return n
        }
        return try readFD(buffer)
    }

    private func readFD(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 {
                bytesRead += n
                return n
            }
            if errno == EINTR { continue }
            throw InputError.readFailed(path, String(cString: strerror(errno)))
        }
    }

    /// Calls `body` for each line (without `\n` or `\r\n`), with its 1-based
    /// number. A line longer than `LineParser.maxLineBytes` is passed cut to
    /// its first 4 KiB with `oversize` set to its full length, so that the
    /// caller can reject it without the reader ever holding it.
    public func forEachLine(
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ oversize: Int?) throws -> Void
    ) throws {
        let maxLine = LineParser.maxLineBytes
        let capacity = maxLine + (1 << 20)
        let lines = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { lines.deallocate() }
        let compressed = compression != .none
        let rawCapacity = compressed ? 1 << 18 : 0
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: max(rawCapacity, 1), alignment: 16)
        defer { raw.deallocate() }
        var rawStart = 0
        var rawEnd = 0
        let stream: StreamDecompressor? = compression == .zstd ? ZstdStream() : compression == .gzip ? GzipStream() : nil
        var sawInput = false

        var start = 0  // first byte of the pending line
        var end = 0  // end of valid data
        var lineNumber = 0
        var oversize: Int? = nil  // length so far of a line being skipped
        var eof = false

        func emit(_ from: Int, _ to: Int) throws {
            lineNumber += 1
            var stop = to
            var from = from
            if stop > from && lines[stop - 1] == 0x0D { stop -= 1 }
            // A UTF-8 byte order mark, as some Windows editors write: not data.
            if lineNumber == 1 && stop - from >= 3 && lines[from] == 0xEF && lines[from + 1] == 0xBB && lines[from + 2] == 0xBF {
                from += 3
            }
            let line = UnsafeBufferPointer(start: lines.baseAddress!.assumingMemoryBound(to: UInt8.self) + from, count: stop - from)
            try body(line, lineNumber, nil)
        }

        while true {
            // Hand out every complete line in the buffer.
            let base = lines.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var scan = start
            while scan < end {
                guard let hit = memchr(base + scan, 0x0A, end - scan) else { break }
                let nl = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                if let skipped = oversize {
                    lineNumber += 1
                    let cut = UnsafeBufferPointer(start: base + start, count: min(4096, nl - start))
                    try body(cut, lineNumber, skipped + (nl - start))
                    oversize = nil
                } else {
                    try emit(start, nl)
                }
                start = nl + 1
                scan = start
            }
            if eof {
                if start < end || oversize != nil {
                    if let skipped = oversize {
                        lineNumber += 1
                        try body(UnsafeBufferPointer(start: base + start, count: min(4096, end - start)), lineNumber, skipped + (end - start))
                    } else {
                        try emit(start, end)
                    }
                }
                return
            }
            // Keep the pending partial line; drop the middle of an oversize one.
            if end - start > maxLine {
                if oversize == nil {
                    oversize = 0
                    // Keep the first 4 KiB for the reject record.
                    memmove(base, base + start, 4096)
                    oversize = end - start - 4096
                    start = 0
                    end = 4096
                } else {
                    oversize! += end - start - 4096
                    end = start + 4096
                }
            }
            if start > 0 {
                memmove(base, base + start, end - start)
                end -= start
                start = 0
            }
            // Refill.
            let free = UnsafeMutableRawBufferPointer(rebasing: lines[end..<capacity])
            if let stream {
                var produced = 0
                while produced == 0 {
                    if rawStart == rawEnd {
                        rawStart = 0
                        rawEnd = try readRaw(raw)
                        if rawEnd == 0 {
                            if sawInput && !stream.atFrameBoundary {
                                throw InputError.badCompression(path, "\(compression.name) stream is damaged or truncated: unexpected end of data")
                            }
                            eof = true
                            break
                        }
                        sawInput = true
                    }
                    var inPos = rawStart
                    var outPos = 0
                    do {
                        try stream.decompress(
                            input: UnsafeRawBufferPointer(rebasing: raw[0..<rawEnd]), inputPosition: &inPos,
                            output: free, outputPosition: &outPos)
                    } catch {
                        throw InputError.badCompression(path, "\(compression.name) stream is damaged or truncated: \(error)")
                    }
                    rawStart = inPos
                    produced = outPos
                }
                end += produced
            } else {
                let n = try readRaw(free)
                if n == 0 { eof = true }
                end += n
            }
        }
    }
}
