import Foundation
import Testing

/// Byte-for-byte comparison with a file under `Golden/`. With
/// `MQA_RECORD=1` in the environment the file is (re)written and the check
/// passes; otherwise a missing or different golden fails, saying how to
/// record it.
enum GoldenFile {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    }

    static var recording: Bool { ProcessInfo.processInfo.environment["MQA_RECORD"] == "1" }

    static func check(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = directory.appendingPathComponent(name)
        if recording {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            do { try Data(actual.utf8).write(to: url) } catch {
                Issue.record("cannot record \(url.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("missing golden file \(url.path); record it with MQA_RECORD=1 swift test --filter MQAReportsTests",
                         sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        if expected != actual {
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let line = (0..<min(e.count, a.count)).first { e[$0] != a[$0] } ?? min(e.count, a.count)
            let want = line < e.count ? String(e[line]) : "<end of file>"
            let got = line < a.count ? String(a[line]) : "<end of file>"
            Issue.record("""
                \(name) differs from its golden file at line \(line + 1):
                  golden: \(want)
                  actual: \(got)
                If the change is intended, re-record with MQA_RECORD=1 swift test --filter MQAReportsTests
                """, sourceLocation: sourceLocation)
        }
    }
}
