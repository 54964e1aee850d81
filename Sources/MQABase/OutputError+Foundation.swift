import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension OutputError {
    /// A failed Foundation file operation on `path` (creating a folder,
    /// removing an earlier file), told in the system's words.
    public init(path: String, error: Error) {
        self.init(path: path, reason: OutputError.reason(error))
    }

    /// The system's words for a failed file operation (`Not a directory`),
    /// not Foundation's dump of its error object, which names the domain
    /// and code and, for some failures, says "The file doesn't exist."
    /// where the folder above it is a file.
    public static func reason(_ error: Error) -> String {
        if let output = error as? OutputError { return output.reason }
        let ns = error as NSError
        let underlying = (ns.userInfo[NSUnderlyingErrorKey] as? Error).map { $0 as NSError }
        let posix = [underlying, ns].compactMap { $0 }.first { $0.domain == NSPOSIXErrorDomain }
        if let posix { return String(cString: strerror(Int32(posix.code))) }
        return ns.localizedDescription
    }
}
