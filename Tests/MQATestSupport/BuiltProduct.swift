import Foundation

/// The path of a built executable of this package, `name`: the test
/// command is `swift build --build-tests && swift test --skip-build`, so
/// it sits next to the test bundle, which may be a directory with the test
/// executable a few levels inside; else `.build/debug/NAME` under the
/// package root.
public func builtProduct(_ name: String, filePath: String = #filePath) -> String {
    var candidates: [URL] = []
    if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent()) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for start in candidates {
        var dir = start
        for _ in 0..<6 {
            let path = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
            dir = dir.deletingLastPathComponent()
        }
    }
    // This file is Tests/MQATestSupport/BuiltProduct.swift: three folders up
    // is the package root.
    let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/\(name)").path
}
