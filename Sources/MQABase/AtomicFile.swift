#if canImport(Glibc)
import Glibc
#endif

/// A file written under a temporary name in its target's directory and
/// renamed over the target only once complete (`commit()`), so a reader
/// never sees a short file that looks whole and a failed write leaves the
/// old file in place.
///
/// The rename replaces a directory entry: a hard link or symbolic link
/// planted under the target's name is replaced, never written through.
/// A target that exists and is not a regular file (`/dev/null`,
/// `/dev/stdout`, a FIFO) is written directly, since renaming over a device
/// node would replace the device.
public final class AtomicFile {
    /// The open descriptor to write to.
    public let fd: Int32
    /// The target as the user named it (for messages).
    public let path: String
    private let directoryFD: Int32
    private let name: String
    private let temporaryName: String?
    /// The temporary file's number in `TemporaryFiles`.
    private var number = 0
    private var finished = false

    /// A file that becomes `path` on `commit()`.
    public convenience init(path: String) throws {
        if let stream = AtomicFile.standardStream(path) {
            // The process's own stream, wherever the shell sent it: written
            // through its descriptor (sharing its offset, so `>>` appends).
            // Followed as a link, a stream redirected to a file was a
            // regular file, and the rename replaced the link in /dev.
            // Not open for writing (standard input, as it mostly is): said
            // now, before the work whose result it would lose.
            let mode = fcntl(stream, F_GETFL)
            guard mode >= 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
            guard mode & O_ACCMODE != O_RDONLY else { throw OutputError(path: path, reason: "is not open for writing") }
            let fd = dup(stream)
            guard fd >= 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
            self.init(streamFD: fd, displayPath: path)
            return
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != ".." else {
            // `file/` names no folder: say what the system says of it.
            var st = stat()
            let reason = stat(path, &st) == 0 ? "is a directory" : errno == ENOENT ? "names a folder, not a file" : String(cString: strerror(errno))
            throw OutputError(path: path, reason: reason)
        }
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFD >= 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
        do {
            try self.init(directoryFD: dirFD, name: name, displayPath: path, ownsDirectory: true)
        } catch {
            Glibc.close(dirFD)
            throw error
        }
    }

    private let ownsDirectory: Bool

    /// The descriptor `path` names when it is one of this process's open
    /// streams: `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`
    /// in any spelling (`/dev//stdout`), or any link to one (the link's
    /// target is the stream's file, device and inode alike).
    public static func standardStream(_ path: String) -> Int32? {
        let parts = path.split(separator: "/").filter { $0 != "." }
        let normal = "/" + parts.joined(separator: "/")
        if path.hasPrefix("/") {
            if normal == "/dev/stdout" { return 1 }
            if normal == "/dev/stderr" { return 2 }
            if normal == "/dev/stdin" { return 0 }
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where normal.hasPrefix(prefix) {
                let digits = normal.dropFirst(prefix.count)
                guard !digits.isEmpty, digits.count < 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                return Int32(digits)
            }
        }
        // A link whose target is one of the standard streams' files.
        var link = stat(), target = stat()
        guard lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK, stat(path, &target) == 0 else { return nil }
        for fd: Int32 in [1, 2] {
            var st = stat()
            if fstat(fd, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino { return fd }
        }
        return nil
    }

    private init(streamFD: Int32, displayPath: String) {
        fd = streamFD
        path = displayPath
        directoryFD = -1
        ownsDirectory = false
        name = ""
        temporaryName = nil
    }

    /// A file that becomes `name` inside the open directory `directoryFD`.
    /// With `replaceSpecial`, whatever is at `name` is replaced by the rename
    /// (batch output: a planted link must never be written through).
    public init(directoryFD: Int32, name: String, displayPath: String, ownsDirectory: Bool = false, replaceSpecial: Bool = false) throws {
        self.directoryFD = directoryFD
        self.name = name
        self.path = displayPath
        self.ownsDirectory = ownsDirectory
        var st = stat()
        if !replaceSpecial && fstatat(directoryFD, name, &st, 0) == 0 {
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR { throw OutputError(path: displayPath, reason: "is a directory") }
            if type != S_IFREG {
                // A device or FIFO: write to it as it is.
                let fd = openat(directoryFD, name, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw OutputError(path: displayPath, reason: String(cString: strerror(errno))) }
                self.fd = fd
                temporaryName = nil
                return
            }
        }
        // Stale temporaries of killed runs in this folder go first (see
        // `TemporaryFiles`); ours is recorded for a signal's clean-up.
        let (temp, number) = TemporaryFiles.name(for: name)
        let fd = TemporaryFiles.create(directoryFD: directoryFD, name: temp, number: number)
        guard fd >= 0 else { throw OutputError(path: displayPath, reason: String(cString: strerror(errno))) }
        self.fd = fd
        self.number = number
        temporaryName = temp
    }

    deinit {
        if !finished { discard() }
        if ownsDirectory { Glibc.close(directoryFD) }
    }

    /// Writes all of `bytes`; throws on the first failure.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let error = writeAll(fd, bytes) { throw OutputError(path: path, reason: error) }
    }

    /// Syncs, closes and renames the file into place.
    public func commit() throws {
        guard !finished else { return }
        finished = true
        guard let temporaryName else {
            if Glibc.close(fd) != 0 { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
            return
        }
        var failure: String? = nil
        if fsync(fd) != 0 && errno != EINVAL { failure = String(cString: strerror(errno)) }
        if Glibc.close(fd) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        TemporaryFiles.finish(number) {
            if failure == nil && renameat(directoryFD, temporaryName, directoryFD, name) != 0 {
                failure = String(cString: strerror(errno))
            }
            if failure != nil { unlinkat(directoryFD, temporaryName, 0) }
        }
        if let failure { throw OutputError(path: path, reason: failure) }
    }

    /// Closes and removes the temporary file; the target is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        Glibc.close(fd)
        if let temporaryName { TemporaryFiles.finish(number) { _ = unlinkat(directoryFD, temporaryName, 0) } }
    }
}
