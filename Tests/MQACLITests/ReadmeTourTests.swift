import Foundation
import Testing

/// The README's 5-minute tour runs as written on the demo's store: every
/// command works and prints no error.
@Suite struct ReadmeTourTests {
    @Test func theTourRunsAsWritten() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let tour = try #require(readme.components(separatedBy: "## A 5-minute tour").dropFirst().first)
        let block = try #require(tour.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let script = block.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("mqa=") ? "mqa=\"$MQA\"" : String($0) }
            .joined(separator: "\n")
        let dir = Scratch()
        let demo = MQA.run(["demo", "--out", dir.file("demo")], timeout: 600)
        #expect(demo.status == 0, "\(demo)")
        let r = MQA.shell("cd \"$D\" && " + script, environment: ["D": dir.path], timeout: 600)
        #expect(r.status == 0, "\(r)")
        #expect(!r.stderr.contains("Error:"), "\(r)")
        #expect(!r.stderr.contains("command not found"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: dir.file("worst.html")))
        #expect(FileManager.default.fileExists(atPath: dir.file("reports/index.html")))
        #expect(r.stdout.contains("# Track"), "\(r)")
        #expect(r.stdout.contains("# Tiers of meeting"), "\(r)")
        #expect(r.stdout.contains("# Tuning"), "\(r)")
    }
}
