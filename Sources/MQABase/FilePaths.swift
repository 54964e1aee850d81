import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Comparing paths as the file system sees them.
public enum FilePaths {
    /// Whether `a` and `b` name the same file: the same device and inode
    /// when both exist, else the same absolute, normalised path (so that a
    /// file about to be created is compared too).
    public static func same(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        let ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0
        if ea && eb { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        if ea != eb { return false }
        return absolute(a) == absolute(b)
    }

    /// Whether `path` is an existing folder (a link to one included).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// `path` made absolute against the working directory, with `.`, `..`
    /// and repeated slashes resolved textually, and the directory part
    /// resolved through symbolic links when it exists.
    public static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent()
        let resolved = directory.resolvingSymlinksInPath()
        return resolved.appendingPathComponent(url.lastPathComponent).path
    }
}
