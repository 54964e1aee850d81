import Foundation

#if canImport(CZstd)
internal import CZstd
#endif

/// How the recorder's files are written.
public enum RecorderCompression: Sendable {
    /// Plain NDJSON, `.ndjson`.
    case none
    /// Every write is one complete zstd frame, `.ndjson.zst`: a crash leaves
    /// whole frames only, and a file of concatenated frames is one valid
    /// zstd stream. Only where the zstd library is available.
    case zstd(level: Int32)

    /// Whether this build can write zstd (`CZstd` is linked on Linux only).
    public static var zstdAvailable: Bool {
        #if canImport(CZstd)
        return true
        #else
        return false
        #endif
    }
}

/// write(2)'s shape, for the tests' stand-in.
typealias WriteFunction = @Sendable (Int32, UnsafeRawPointer, Int) -> Int

/// The writer thread's files for one client: lines are gathered in
/// `pending` and reach the file in one `write` per batch. A crash mostly
/// cuts the log between batches, but a kill can stop a write part-way (the
/// kernel copies page by page), so an abandoned file may end inside a line:
/// `MeetingRecorder.finishAbandonedFiles` cuts it back to its last whole
/// line. Each file is
/// written under a `.partial` name and renamed to its final name once it is
/// complete (rotated, moved to another meeting, or closed) and synced.
final class LogFiles {
    static let partialSuffix = ".partial"

    let directory: String
    var meeting: String
    let uid: String
    let maxFileBytes: Int
    let compression: RecorderCompression
    /// Tests only: stands in for write(2) to simulate short and failed writes.
    var writeOverride: WriteFunction?

    /// Formatted lines not yet written.
    var pending: [UInt8] = []
    private var pendingEvents = 0
    private var pendingDropLines = 0
    private var pendingFirstTs: Int64?

    private var fd: Int32 = -1
    private var size = 0
    private var partialPath = ""
    private var finalPath = ""

    /// Event lines written to files (`recorder_dropped` lines not counted).
    private(set) var writtenEvents = 0
    /// `recorder_dropped` lines written.
    private(set) var writtenDropLines = 0
    /// Event lines formatted but not written (the write failed).
    private(set) var lostEvents = 0
    /// Complete files, in the order they were finished.
    private(set) var finished: [String] = []
    /// The last I/O error, for `MeetingRecorder.Statistics`.
    private(set) var lastError: String?

    #if canImport(CZstd)
    private var zstdContext: OpaquePointer?
    private var frame: [UInt8] = []
    #endif

    init(directory: String, meeting: String, uid: String, maxFileBytes: Int, compression: RecorderCompression) {
        self.directory = directory
        self.meeting = meeting
        self.uid = uid
        self.maxFileBytes = maxFileBytes
        self.compression = compression
        pending.reserveCapacity(1 << 16)
    }

    deinit {
        #if canImport(CZstd)
        if let zstdContext { ZSTD_freeCCtx(zstdContext) }
        #endif
    }

    private var compressed: Bool {
        if case .zstd = compression, RecorderCompression.zstdAvailable { return true }
        return false
    }

    /// Call after appending one line (from byte `start` of `pending`). For a
    /// plain file, a line that would take the file over `maxFileBytes`
    /// starts the next file; a zstd file's size is only known per frame, so
    /// it rotates once a frame has taken it over the size.
    func lineAdded(start: Int, ts: Int64, isEvent: Bool) {
        if !compressed && size + pending.count > maxFileBytes && size + start > 0 {
            if start > 0 {
                store(pending[..<start], events: pendingEvents, dropLines: pendingDropLines)
                pending.removeFirst(start)
                pendingEvents = 0
                pendingDropLines = 0
            }
            closeFile()
        }
        if pendingFirstTs == nil { pendingFirstTs = ts }
        if isEvent { pendingEvents += 1 } else { pendingDropLines += 1 }
    }

    /// Writes what is pending as one write (one zstd frame).
    func flush() {
        guard !pending.isEmpty else { return }
        store(pending[...], events: pendingEvents, dropLines: pendingDropLines)
        pending.removeAll(keepingCapacity: true)
        pendingEvents = 0
        pendingDropLines = 0
        if compressed && size >= maxFileBytes { closeFile() }
    }

    /// Flushes, then completes the current file.
    func finish() {
        flush()
        closeFile()
    }

    /// Syncs, closes and renames the current file to its final name.
    private func closeFile() {
        guard fd >= 0 else { return }
        if fsync(fd) != 0 { note("fsync") }
        if close(fd) != 0 { note("close") }
        fd = -1
        size = 0
        // Renamed even after a failed sync: its lines are whole, and a
        // `.partial` left behind would only be renamed by the recovery.
        if rename(partialPath, finalPath) == 0 {
            finished.append(finalPath)
            syncDirectory()
        } else {
            note("rename")
        }
    }

    private func store(_ bytes: ArraySlice<UInt8>, events: Int, dropLines: Int) {
        let firstTs = pendingFirstTs ?? 0
        pendingFirstTs = nil
        guard fd >= 0 || openFile(firstTs: firstTs) else {
            lostEvents += events
            return
        }
        let ok: Bool
        #if canImport(CZstd)
        if compressed {
            if let n = compressFrame(bytes) { ok = writeAll(frame[..<n]) } else { ok = false }
        } else {
            ok = writeAll(bytes)
        }
        #else
        ok = writeAll(bytes)
        #endif
        if ok {
            writtenEvents += events
            writtenDropLines += dropLines
            return
        }
        lostEvents += events
        // Whatever part of the batch got in is cut off again, so the file
        // still ends with a whole line; then the file is closed for good, so
        // nothing is ever written after a half line.
        if ftruncate(fd, off_t(size)) != 0 { note("ftruncate") }
        closeFile()
    }

    /// One `write` normally; more only when the kernel takes part of it.
    private func writeAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n =
                    writeOverride?(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    ?? write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    note("write")
                    return false
                }
                if n == 0 {
                    lastError = "write: no progress"
                    return false
                }
                offset += n
            }
            size += offset
            return true
        }
    }

    #if canImport(CZstd)
    /// Compresses `bytes` into `frame` (kept at its largest size, so it is
    /// allocated once); returns the frame's length.
    private func compressFrame(_ bytes: ArraySlice<UInt8>) -> Int? {
        if zstdContext == nil { zstdContext = ZSTD_createCCtx() }
        guard let zstdContext, case .zstd(let level) = compression else { return nil }
        let bound = ZSTD_compressBound(bytes.count)
        if frame.count < bound { frame = [UInt8](repeating: 0, count: bound) }
        let n = bytes.withUnsafeBytes { input in
            frame.withUnsafeMutableBytes { out in
                ZSTD_compressCCtx(zstdContext, out.baseAddress, bound, input.baseAddress, input.count, level)
            }
        }
        guard ZSTD_isError(n) == 0 else {
            lastError = "zstd: " + String(cString: ZSTD_getErrorName(n))
            return nil
        }
        return n
    }
    #endif

    /// Creates `<meeting>__<uid>__<firstTs>.ndjson[.zst].partial`, never
    /// replacing a file (a `-N` suffix when the name is taken).
    private func openFile(firstTs: Int64) -> Bool {
        let base = LogFiles.safeName(meeting) + "__" + LogFiles.safeName(uid) + "__" + String(firstTs)
        let ext = compressed ? ".ndjson.zst" : ".ndjson"
        for attempt in 0..<1000 {
            let name = base + (attempt == 0 ? "" : "-\(attempt)") + ext
            let final = directory + "/" + name
            if access(final, F_OK) == 0 { continue }
            let partial = final + LogFiles.partialSuffix
            let d = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
            if d >= 0 {
                fd = d
                size = 0
                partialPath = partial
                finalPath = final
                return true
            }
            if errno != EEXIST {
                note("open \(partial)")
                return false
            }
        }
        lastError = "open: no free file name for \(base)"
        return false
    }

    /// Makes a rename durable: the directory entry is synced too.
    private func syncDirectory() {
        let d = open(directory, O_RDONLY | O_CLOEXEC)
        guard d >= 0 else { return }
        _ = fsync(d)
        _ = close(d)
    }

    private func note(_ what: String) {
        lastError = what + ": " + String(cString: strerror(errno))
    }

    /// A file-name component that keeps `[A-Za-z0-9.-]` and writes any other
    /// byte as `_XX` (hex, `_` itself included), so `__` only ever separates
    /// the parts and no id can name a path outside the directory. Capped at
    /// 96 bytes (ids may be 256 characters; names may not exceed 255 bytes).
    ///
    /// Deliberately not the package's `SafeFileName` (MQABase): the recorder
    /// builds for iOS and macOS on Foundation alone, so it cannot import the
    /// package's modules; and its names must stay distinct without a hash
    /// and keep `__` free to separate meeting, uid and first ts, so it
    /// escapes each byte where `SafeFileName` folds characters into `_`. On
    /// plain ids (`[A-Za-z0-9.-]`, no leading dot, no `..`) both keep the id
    /// as it is, and neither ever names a way out of the folder:
    /// `safeNamesAgreeWithThePackageRule` (MQARecorderTests) holds both.
    static func safeName(_ id: String) -> String {
        var out: [UInt8] = []
        for (i, b) in id.utf8.enumerated() {
            let plain =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "-") || (b == UInt8(ascii: ".") && i > 0)
            let width = plain ? 1 : 3
            if out.count + width > 96 { break }
            if plain {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "_"))
                out.append(LineFormatter.hexDigit(b >> 4))
                out.append(LineFormatter.hexDigit(b & 0xF))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension MeetingRecorder {
    /// Completes the files of a recorder that never closed (the app was
    /// killed or crashed): each `.partial` file in `directory` is cut back to
    /// its last whole line (zstd: its last whole frame), synced and renamed
    /// to its final name; one left empty is removed. Call it at launch,
    /// before starting a recorder on `directory`, then upload as usual.
    /// Returns the files it completed.
    @discardableResult
    public static func finishAbandonedFiles(in directory: URL) throws -> [URL] {
        // First launch: no folder yet, so nothing was abandoned.
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        var done: [URL] = []
        for name in names.sorted() where name.hasSuffix(LogFiles.partialSuffix) {
            let partial = directory.appendingPathComponent(name)
            let final = directory.appendingPathComponent(String(name.dropLast(LogFiles.partialSuffix.count)))
            let data = try Data(contentsOf: partial)
            let keep = name.hasSuffix(".zst" + LogFiles.partialSuffix) ? wholeFrames(data) : wholeLines(data)
            guard let keep else { continue }  // zstd without the library: left as it is
            if keep == 0 {
                try FileManager.default.removeItem(at: partial)
                continue
            }
            // POSIX rather than FileHandle's throwing calls, which need
            // macOS 10.15 / iOS 13.
            let fd = open(partial.path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw posixError("open \(partial.path)") }
            let synced = ftruncate(fd, off_t(keep)) == 0 && fsync(fd) == 0
            let error = synced ? nil : posixError("truncate \(partial.path)")
            _ = closeDescriptor(fd)
            if let error { throw error }
            if access(final.path, F_OK) == 0 { continue }  // never replace a file
            guard rename(partial.path, final.path) == 0 else { throw posixError("rename \(partial.path)") }
            done.append(final)
        }
        return done
    }

    private static func posixError(_ what: String) -> NSError {
        NSError(
            domain: NSPOSIXErrorDomain, code: Int(errno),
            userInfo: [NSLocalizedDescriptionKey: what + ": " + String(cString: strerror(errno))])
    }

    private static func wholeLines(_ data: Data) -> Int? {
        guard let last = data.lastIndex(of: 0x0A) else { return 0 }
        return last - data.startIndex + 1
    }

    private static func wholeFrames(_ data: Data) -> Int? {
        #if canImport(CZstd)
        return data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = ZSTD_findFrameCompressedSize(bytes.baseAddress! + offset, bytes.count - offset)
                if ZSTD_isError(n) != 0 { break }
                offset += n
            }
            return offset
        }
        #else
        return nil
        #endif
    }
}

/// close(2), for code inside `MeetingRecorder`, where `close` is the recorder's.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
