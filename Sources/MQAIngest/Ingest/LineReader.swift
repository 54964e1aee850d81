#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel
import MQAStore

/// Input failures that stop one file (not the lines of it: those are rejects).
public enum InputError: Error, CustomStringConvertible {
    case cannotOpen(String, String)
    case isDirectory(String)
    case readFailed(String, String)
    case badCompression(String, String)
    case changedWhileRead(String, String)
    /// A stats dump that is not valid in its format (rejected whole).
    case invalidDump(String, String)
    /// A stats dump past one of `DumpLimits` (rejected whole, never held).
    case overLimit(String, String)
    /// Content whose first bytes are not text: another compression, or a
    /// binary file given by mistake (one error instead of a reject a line).
    case notText(String, String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let why): "\(path): cannot open: \(why)"
        case .isDirectory(let path): "\(path): is a directory (give the log files inside it, e.g. \(path)/*.ndjson, or ingest -r \(path))"
        case .readFailed(let path, let why): "\(path): read failed: \(why)"
        case .badCompression(let path, let why): "\(path): \(why)"
        case .changedWhileRead(let path, let how):
            "\(path): the file changed while it was read (\(how)); the lines read were stored, and ingesting the file again once it is complete stores the rest"
        case .invalidDump(let path, let why): "\(path): \(why)"
        case .overLimit(let path, let why): "\(path): \(why)"
        case .notText(let path, let why): "\(path): \(why)"
        }
    }
}

/// Streams an input (`-` for stdin; zstd or gzip, told by their magic
/// bytes, decompressed on the fly) as
/// lines, with bounded memory whatever the input's size: a fixed read
/// buffer, and a line buffer that never grows past the longest allowed line.
///
/// Every input is read exactly once (a pipe or FIFO can only be), and the
/// reader hashes the content as it hands out its lines: the identity under
/// which an input is recorded is the SHA-256 of the bytes actually parsed
/// (after decompression), and `digestThroughCurrentLine()` gives the
/// identity of a prefix, for resuming after a kill. A regular file that
/// changes while it is read is noticed (`changedWhileReading`).
public final class LineReader {
    public let path: String
    private let fd: Int32
    /// How the input is compressed, from its first bytes (not its name):
    /// known once anything was read (`detectCompression`).
    public private(set) var compression: Compression = .none
    private var compressionKnown = false
    /// Where the input is read: its first bytes, read ahead to tell the
    /// compression and the content format, are handed out again from here
    /// (`ahead`), and a plain input's lines are then read on in the same
    /// memory, so the peeked bytes are never copied. Taken at the first
    /// read, given back when the lines or the whole content are read.
    private var buffer: UnsafeMutableRawBufferPointer?
    /// The bytes of `buffer` read ahead and not handed out yet.
    private var ahead = 0..<0
    /// The longest line and a read's worth of bytes after it.
    static let bufferCapacity = LineParser.maxLineBytes + (1 << 20)
    /// Bytes read from the input so far (compressed bytes for `.zst`).
    public private(set) var bytesRead = 0
    /// The input's size, when it is a regular file.
    public let size: Int?
    /// About what a regular file holds once decompressed, as its name
    /// tells (`.gz`, `.zst`) and its own header or trailer records (at
    /// most 1 TiB); else its size. How much of the input an ingest reads
    /// ahead is counted in it: eight 31 KB gzip files of 30 MB each were
    /// read ahead at once, as if they were small.
    public let expandedSize: Int?
    /// Whether the input is a regular file (it can be read again; a pipe cannot).
    public let isRegularFile: Bool
    /// How far `readAll` lets a stats dump expand (`DumpLimits.standard`
    /// unless set; the fuzz targets set small ones to reach the limits).
    public var dumpLimits = DumpLimits.standard
    private let opened: stat

    /// The content read so far, hashed up to the end of the last line handed out.
    private let hasher = SHA256()
    /// Content bytes hashed (decompressed).
    public private(set) var contentBytes = 0
    /// The content digest once `forEachLine` has returned.
    public private(set) var finalDigest: String?
    // Set by forEachLine while it runs, for digestThroughCurrentLine().
    private var pendingHash: (UnsafeRawPointer, Int)?

    public init(path: String) throws {
        self.path = path
        var st = stat()
        if StandardInput.wasClosed && (path == "-" || AtomicFile.standardStream(path) == 0) {
            throw InputError.cannotOpen(path, "standard input is closed")
        }
        if path == "-" {
            fd = 0
            guard fstat(0, &st) == 0 else { throw InputError.cannotOpen(path, String(cString: strerror(errno))) }
        } else {
            // Opened first and then asked what it is: a directory opens
            // read-only too, and a `stat` before the `open` was a third
            // system call per input for that alone.
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else {
                let reason = String(cString: strerror(errno))
                // A directory this user may not read is still a directory
                // to the user, who gave its name by mistake.
                if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { throw InputError.isDirectory(path) }
                throw InputError.cannotOpen(path, reason)
            }
            guard fstat(opened, &st) == 0 else {
                let reason = String(cString: strerror(errno))
                close(opened)
                throw InputError.cannotOpen(path, reason)
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                close(opened)
                throw InputError.isDirectory(path)
            }
            fd = opened
        }
        opened = st
        isRegularFile = (st.st_mode & S_IFMT) == S_IFREG
        // Standard input may be a file a script has read a header of: the
        // input is what is left of it.
        let start = isRegularFile && path == "-" ? max(0, Int(lseek(0, 0, SEEK_CUR))) : 0
        startOffset = start
        let size = isRegularFile ? max(0, Int(st.st_size) - start) : nil
        self.size = size
        let descriptor = fd
        expandedSize = size.map { LineReader.expandedSize(fd: descriptor, path: path, from: start, size: $0) }
    }

    /// `expandedSize` of a regular file: one read of its header or trailer,
    /// only when its name says it is compressed (a read of every input
    /// here waited on the disk in the writer's thread), never less than
    /// its size.
    private static func expandedSize(fd: Int32, path: String, from start: Int, size: Int) -> Int {
        let name = path.lowercased()
        let gzip = name.hasSuffix(".gz") || name.hasSuffix(".gzip")
        guard gzip || name.hasSuffix(".zst") || name.hasSuffix(".zstd"), size >= 18 else { return size }
        var bytes = [UInt8](repeating: 0, count: gzip ? 4 : 18)
        let offset = gzip ? start + size - 4 : start
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard read == bytes.count else { return size }
        let recorded = bytes.withUnsafeBytes { gzip ? Compression.gzipContentSize(trailer: $0) : Compression.zstdContentSize($0) }
        // Capped: a damaged or crafted header may record up to 2^63 bytes,
        // and the sizes of the inputs read ahead are summed.
        return max(size, min(recorded ?? size, LineReader.largestExpandedSize))
    }

    /// What `expandedSize` says at most: far past any read-ahead budget.
    static let largestExpandedSize = 1 << 40

    /// Where reading began: 0, but for standard input already read into.
    private let startOffset: Int

    /// Tells the compression from the first bytes (not the name), once,
    /// before anything is read: they stay pending and are handed out again,
    /// so nothing is read twice. Not in `init`: the ingest opens inputs on
    /// the writer's thread and reads them on a parsing thread, and that
    /// first read (64 KiB, most of a small log) then waited on the disk in
    /// the writer's thread, one input after another.
    func detectCompression() throws {
        guard !compressionKnown else { return }
        compression = Compression.detect(try fill(4))
        compressionKnown = true
    }

    /// Reads until `count` bytes are pending (fewer at the end of input;
    /// more may be: a read asks for 64 KiB at least); returns them, still
    /// pending. Read into memory not zeroed first, and the first read made
    /// the pending bytes themselves: zeroing and copying 64 KiB per input
    /// (for the 4 bytes that tell the compression, then the format's peek)
    /// cost ~100K instructions an input, 1 % of an ingest of ~100 KB files.
    /// The view is valid until the next read.
    @discardableResult
    func readAhead(_ count: Int) throws -> UnsafeRawBufferPointer {
        try detectCompression()
        return try fill(count)
    }

    private func fill(_ count: Int) throws -> UnsafeRawBufferPointer {
        let memory = takeBuffer()
        precondition(ahead.lowerBound + count <= memory.count, "a peek past the read buffer")
        while ahead.count < count {
            let upTo = min(memory.count, ahead.upperBound + max(count - ahead.count, 1 << 16))
            let n = try readFD(UnsafeMutableRawBufferPointer(rebasing: memory[ahead.upperBound..<upTo]))
            if n == 0 { break }
            ahead = ahead.lowerBound..<ahead.upperBound + n
        }
        return UnsafeRawBufferPointer(rebasing: memory[ahead])
    }

    private func takeBuffer() -> UnsafeMutableRawBufferPointer {
        if let buffer { return buffer }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: LineReader.bufferCapacity, alignment: 16)
        buffer = memory
        return memory
    }

    private func releaseBuffer() {
        buffer?.deallocate()
        buffer = nil
        ahead = 0..<0
    }

    /// Why the file is not what it was when opened, once read to the end: a
    /// regular file that was truncated, grew or was rewritten meanwhile
    /// (nil when it did not change, and for pipes).
    public func changedWhileReading() -> String? {
        guard isRegularFile else { return nil }
        var now = stat()
        guard fstat(fd, &now) == 0 else { return "cannot stat it again: \(String(cString: strerror(errno)))" }
        if Int(now.st_size) != Int(opened.st_size) || bytesRead != Int(opened.st_size) - startOffset {
            return "\(opened.st_size) bytes when opened, \(now.st_size) bytes at the end, \(bytesRead) bytes read"
        }
        if now.st_mtim.tv_sec != opened.st_mtim.tv_sec || now.st_mtim.tv_nsec != opened.st_mtim.tv_nsec {
            return "it was modified while it was read"
        }
        return nil
    }

    /// The SHA-256 (`sha256:…`) of the content through the end of the line
    /// being handed to `forEachLine`'s body, terminator included. Only
    /// valid inside the body.
    public func digestThroughCurrentLine() -> String {
        flushHash()
        return hasher.snapshotText()
    }

    /// Hashes content read a chunk at a time (a stats dump).
    func hashContent(_ content: UnsafeRawBufferPointer) {
        hasher.update(content)
        contentBytes += content.count
    }

    /// The digest of the content hashed by `hashContent`, once all of it was.
    func finishContentDigest() {
        finalDigest = hasher.snapshotText()
    }

    private func flushHash() {
        guard let (start, count) = pendingHash, count > 0 else { return }
        hasher.update(UnsafeRawBufferPointer(start: start, count: count))
        contentBytes += count
        pendingHash = (start + count, 0)
    }

    deinit {
        if fd != 0 { close(fd) }
        releaseBuffer()
    }

    func readRaw(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try detectCompression()
        if let memory = self.buffer, !ahead.isEmpty {
            let n = min(buffer.count, ahead.count)
            buffer.baseAddress!.copyMemory(from: memory.baseAddress! + ahead.lowerBound, byteCount: n)
            ahead = ahead.lowerBound + n..<ahead.upperBound
            if ahead.isEmpty { releaseBuffer() }
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

    /// Throws `InputError.notText` when the content's first 64 bytes
    /// (after decompression, after a UTF-8 byte order mark) cannot start a
    /// text file: an lz4 or xz file, a log compressed twice, a binary file
    /// given by mistake would otherwise be read as lines, each of them
    /// rejected as "not valid JSON". Peeked (the bytes stay pending), once
    /// per input: nothing is added to the line loop.
    func rejectIfNotText() throws {
        // A plain input's peek is all that is pending (64 KiB after the
        // format sniff): only its first 64 bytes are the head.
        var head = try withPeekedContent(limit: 64) { Array($0.prefix(64)) }
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head.removeFirst(3) }
        // A JSON line's start (`{"`, `["`, `[[`, `[{`) is text whatever
        // follows: a NUL in the first line's uid is that line's reject, and
        // must not cost the file's other lines.
        func space(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        func startsLine(_ bytes: some Collection<UInt8>) -> Bool {
            let from = bytes.drop(while: space)
            guard let open = from.first, open == UInt8(ascii: "{") || open == UInt8(ascii: "["),
                  let next = from.dropFirst().drop(while: space).first else { return false }
            return [UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "{")].contains(next)
        }
        if startsLine(head) { return }
        // A log cut in place while its writer kept its offset (logrotate's
        // `copytruncate`) starts with a hole of NUL bytes, then its lines:
        // text, whose first line (the hole) is rejected. Its first MiB (a
        // line's limit) is read to tell: a JSON line after the hole, or NUL
        // to the end of that MiB with more to come (a hole longer than a
        // line, itself a reject). A file of NUL bytes alone is no log.
        let limit = LineParser.maxLineBytes
        if head.first == 0, try withPeekedContent(limit: limit, { content in
            content.firstIndex { $0 != 0 }.map { startsLine(content[$0...].prefix(64)) } ?? (content.count == limit)
        }) { return }
        guard head.withUnsafeBytes({ Compression.looksBinary($0) }) else { return }
        let shown = head.prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined(separator: " ")
        let what = compression == .none ? "" : "its \(compression.name) content "
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
            throw InputError.notText(
                path, "\(what)looks like UTF-16 text (first bytes \(shown)), not an event log; mqa reads UTF-8 (iconv -f UTF-16 -t UTF-8 converts it)")
        }
        throw InputError.notText(
            path, "\(what)looks compressed or binary (first bytes \(shown)), not an event log; supported: plain, gzip, zstd")
    }

    /// Calls `body` for each line (without `\n` or `\r\n`), with its 1-based
    /// number. A line longer than `LineParser.maxLineBytes` is passed cut to
    /// its first 4 KiB with `oversize` set to its full length, so that the
    /// caller can reject it without the reader ever holding it.
    /// Fails the input with `notText` before its first line when its
    /// content's first bytes are not text (`Compression.looksBinary`).
    public func forEachLine(
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ oversize: Int?) throws -> Void
    ) throws {
        try rejectIfNotText()
        let maxLine = LineParser.maxLineBytes
        let capacity = LineReader.bufferCapacity
        let compressed = compression != .none
        var start = 0  // first byte of the pending line
        var end = 0  // end of valid data
        // A plain input's lines go on in the memory its first bytes were
        // read into (copying them cost ~50K instructions an input); a
        // compressed input's first bytes go to `raw` through `readRaw`.
        let lines: UnsafeMutableRawBufferPointer
        if compressed {
            lines = .allocate(byteCount: capacity, alignment: 16)
        } else {
            lines = takeBuffer()
            (start, end) = (ahead.lowerBound, ahead.upperBound)
            ahead = 0..<0
        }
        defer { if compressed { lines.deallocate() } else { releaseBuffer() } }
        let rawCapacity = compressed ? 1 << 18 : 0
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: max(rawCapacity, 1), alignment: 16)
        defer { raw.deallocate() }
        var rawStart = 0
        var rawEnd = 0
        let stream: StreamDecompressor? = compression == .zstd ? ZstdStream() : compression == .gzip ? GzipStream() : nil
        var sawInput = false

        var hashed = start  // content before this offset of `lines` is hashed
        let linesBase = UnsafeRawPointer(lines.baseAddress!)
        /// Marks the content through `offset` as consumed; it is hashed
        /// lazily, when a digest is asked for or the buffer moves.
        func consume(through offset: Int) {
            let from = pendingHash?.0 ?? linesBase + hashed
            pendingHash = (from, from.distance(to: linesBase + offset))
        }
        func hashConsumed() {
            flushHash()
            if let (p, _) = pendingHash { hashed = linesBase.distance(to: p) }
            pendingHash = nil
        }
        defer { pendingHash = nil }
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
                consume(through: nl + 1)
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
                consume(through: end)
                defer {
                    hashConsumed()
                    finalDigest = hasher.snapshotText()
                }
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
            // The buffer moves below: hash what was handed out, and the
            // middle of an oversize line before it is dropped.
            hashConsumed()
            if end - start > maxLine {
                consume(through: end)
                hashConsumed()
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
                hashed = end
            }
            if start > 0 {
                memmove(base, base + start, end - start)
                end -= start
                hashed -= start
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
