#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The temporary files `AtomicFile` writes before renaming them into place:
/// their names, the ones open right now (so a fatal signal can remove them),
/// and the removal of ones a killed `mqa` left behind.
///
/// A temporary file is named `.<target>.tmp-<pid>-<n>` and is locked
/// (`flock`) by the process writing it for as long as it is open. A file
/// of that name is stale, and removed, only when its pid is not running and
/// nobody holds its lock: the pid alone could be of another pid namespace
/// (a container sharing the folder), the lock alone may not work on every
/// file system.
public enum TemporaryFiles {
    /// An open temporary file: its folder (an open descriptor) and name.
    struct Entry {
        var directoryFD: Int32
        var name: String
    }

    /// The open temporary files, by number.
    private static let live = Mutex<[Int: Entry]>([:])
    /// The folders (device, inode) already swept by this process: a site's
    /// thousands of pages share two folders, and one pass is enough.
    private static let swept = Mutex<Set<[UInt64]>>([])
    private static let counter = Atomic<Int>(0)

    /// The temporary name for `target` in this process.
    static func name(for target: String) -> (name: String, number: Int) {
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return (".\(nameStem(target)).tmp-\(getpid())-\(number)", number)
    }

    /// At most the first 200 bytes of `name`, cut between characters: a
    /// temporary name built on it (`.NAME.tmp-PID-N`, `.NAME.creating-PID`)
    /// stays within the 255 bytes a file name may have, for any name that
    /// fits itself (200 characters of `é` were 400 bytes).
    public static func nameStem(_ name: String) -> Substring {
        var end = name.startIndex
        var bytes = 0
        for (index, character) in zip(name.indices, name) {
            bytes += character.utf8.count
            if bytes > 200 { break }
            end = name.index(after: index)
        }
        return name[..<end]
    }

    /// The pid in a name of the `.<target>.tmp-<pid>-<n>` form, nil for any
    /// other name.
    static func pid(inName name: String) -> pid_t? {
        // Read from the end: `<n>`, `-`, `<pid>`, `.tmp-`, and a target
        // name of at least one byte after the leading dot.
        var bytes = Array(name.utf8)[...]
        func digits() -> Int? {
            let start = bytes.lastIndex { $0 < UInt8(ascii: "0") || $0 > UInt8(ascii: "9") }.map { $0 + 1 } ?? bytes.startIndex
            guard start < bytes.endIndex, bytes.endIndex - start <= 9 else { return nil }
            defer { bytes = bytes[..<start] }
            return bytes[start...].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard name.hasPrefix("."), digits() != nil, bytes.popLast() == UInt8(ascii: "-"), let pid = digits(), pid > 0,
            bytes.count >= 7, bytes.suffix(5).elementsEqual(".tmp-".utf8)
        else { return nil }
        return pid_t(pid)
    }

    /// Creates the temporary file `name` in `directoryFD` (never through a
    /// link) and records it; returns the descriptor, or -1 with `errno` set.
    /// Created under the lock `removeAllAndDie` takes, so no file appears
    /// after a signal's clean-up has run.
    static func create(directoryFD: Int32, name: String, number: Int) -> Int32 {
        sweepOnce(directoryFD: directoryFD)
        return live.withLock { files in
            let fd = openat(directoryFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return fd }
            // Held until the descriptor is closed or the process dies: tells
            // a sweep the file is in use. Not every file system has locks;
            // the pid check remains.
            _ = flock(fd, LOCK_EX | LOCK_NB)
            files[number] = Entry(directoryFD: directoryFD, name: name)
            return fd
        }
    }

    /// Forgets temporary file `number` after running `body` (its rename or
    /// removal) under the lock, so a signal arriving meanwhile finds the
    /// file either still temporary (and removes it) or already in place.
    static func finish<T>(_ number: Int, _ body: () -> T) -> T {
        live.withLock { files in
            let result = body()
            files[number] = nil
            return result
        }
    }

    /// Removes every open temporary file, then calls `die` while still
    /// holding the lock: no file can be created or renamed after the
    /// clean-up. For a fatal signal.
    public static func removeAllAndDie(_ die: () -> Never) -> Never {
        live.withLock { files in
            for entry in files.values { unlinkat(entry.directoryFD, entry.name, 0) }
            die()
        }
    }

    /// Removes the stale temporary files in `directoryFD` (see the type's
    /// doc), once per folder per process.
    static func sweepOnce(directoryFD: Int32) {
        var st = stat()
        guard fstat(directoryFD, &st) == 0 else { return }
        let key = [UInt64(st.st_dev), UInt64(st.st_ino)]
        guard swept.withLock({ $0.insert(key).inserted }) else { return }
        // A descriptor of its own: `closedir` closes it.
        let fd = openat(directoryFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0, let dir = fdopendir(fd) else {
            if fd >= 0 { close(fd) }
            return
        }
        defer { closedir(dir) }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if let pid = pid(inName: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { stale.append(name) }
        }
        for name in stale { removeIfUnlocked(directoryFD: directoryFD, name: name) }
    }

    /// Removes the regular file `name` unless some process holds its lock.
    private static func removeIfUnlocked(directoryFD: Int32, name: String) {
        let fd = openat(directoryFD, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 else { return }
        unlinkat(directoryFD, name, 0)
    }
}
