import Foundation

/// A fresh temporary folder per test, removed when the test lets go of it
/// (the suites used to leave one behind per test, thousands a day). The
/// test targets' `Scratch` and `TempDir` are this folder with what each
/// target adds.
open class ScratchFolder {
    public let path: String
    public var url: URL { URL(fileURLWithPath: path) }

    /// `name` (the test's, by default) goes into the folder's name, so a
    /// folder left by a crash says whose it was.
    public init(_ name: String = #function, prefix: String = "mqa-test") {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "/\(prefix)-\(safe)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        ExitSweep.shared.add(path)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        precondition(FileManager.default.createFile(atPath: p, contents: Data(text.utf8)), "cannot write \(p)")
        return p
    }

    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let p = file(name)
        precondition(FileManager.default.createFile(atPath: p, contents: Data(bytes)), "cannot write \(p)")
        return p
    }

    /// `lines`, each ended by a newline.
    @discardableResult
    public func write(_ name: String, lines: [String]) -> String {
        write(name, lines.joined(separator: "\n") + "\n")
    }

    /// File names in the folder, sorted.
    public var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    /// The bytes of `name` (empty when it cannot be read).
    public func bytes(_ name: String) -> [UInt8] {
        [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: file(name)))) ?? Data())
    }
}

/// Removes every scratch folder when the test process exits. A fixture
/// held in a `static let` (a store built once for a whole suite) is never
/// deinitialised, so without this each run left its folder behind.
private final class ExitSweep: @unchecked Sendable {
    static let shared = ExitSweep()
    private let lock = NSLock()
    private var paths: [String] = []

    private init() { atexit { ExitSweep.shared.sweep() } }

    func add(_ path: String) {
        lock.lock()
        paths.append(path)
        lock.unlock()
    }

    private func sweep() {
        lock.lock()
        let left = paths
        lock.unlock()
        for path in left where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
