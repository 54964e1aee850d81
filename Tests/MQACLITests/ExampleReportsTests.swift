import Foundation
import Testing
@testable import MQACLI
import MQAQueries

/// `Reports/` holds the reports of the demo's fixed seed. This test runs the
/// demo again and fails on any difference, so every change to a report shows
/// in review. `MQA_RECORD=1 swift test --filter ExampleReports` re-records.
@Suite struct ExampleReportsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Example file in Reports/ → the demo output it comes from.
    static let examples: [(String, String)] = [
        ("fleet.md", "reports/fleet.md"), ("fleet.html", "reports/fleet.html"),
        ("worst-meeting.md", "reports/worst-meeting.md"), ("worst-meeting.html", "reports/worst-meeting.html"),
        ("worst-meeting.json", "reports/worst-meeting.json"), ("worst-meeting.csv", "reports/worst-meeting.csv"),
        ("worst-meeting-tiers.md", "reports/worst-meeting-tiers.md"),
        ("track.md", "reports/track.md"), ("track.html", "reports/track.html"),
        ("meetings-index.md", "reports/meetings/index.md"), ("tune.md", "tuning/tune.md"),
        ("cohorts.md", "reports/cohorts.md"), ("compare.md", "reports/compare.md"), ("trends.md", "reports/trends.md"),
    ]

    @Test func demoReportsMatchTheCommittedExamples() throws {
        let out = NSTemporaryDirectory() + "mqa-examples-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let code = CLI.main(["demo", "--meetings", "8", "--seed", "1", "--out", out], environment: [:])
        // Every file the demo writes is complete and in place when it returns.
        #expect(FileManager.default.fileExists(atPath: out + "/ingest-summary.txt"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/reports").allSatisfy { !$0.contains(".tmp-") })
        #expect(code == 0)
        let record = ProcessInfo.processInfo.environment["MQA_RECORD"] == "1"
        let reports = Self.packageRoot.appendingPathComponent("Reports")
        for (example, produced) in Self.examples {
            let actual = try String(contentsOfFile: out + "/" + produced, encoding: .utf8)
            let path = reports.appendingPathComponent(example)
            if record {
                try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
                try actual.write(to: path, atomically: true, encoding: .utf8)
                continue
            }
            guard let expected = try? String(contentsOf: path, encoding: .utf8) else {
                Issue.record("Reports/\(example) is missing: run `MQA_RECORD=1 swift test --filter ExampleReports`")
                continue
            }
            #expect(actual == expected, "Reports/\(example) differs from the demo's output; if intended, re-record with MQA_RECORD=1")
        }
    }
}

@Suite struct QueriesFolderTests {
    /// A .sql file that is not listed in Package.swift and Queries.swift
    /// would silently not be part of `mqa query`.
    @Test func everySQLFileIsANamedQuery() throws {
        let folder = ExampleReportsTests.packageRoot.appendingPathComponent("Queries").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }
        let named = Set(Queries.named.map { $0.name + ".sql" } + ["schema.sql"])
        #expect(Set(files) == named)
        let manifest = try String(contentsOfFile: ExampleReportsTests.packageRoot.appendingPathComponent("Package.swift").path, encoding: .utf8)
        for file in files { #expect(manifest.contains("\"\(file)\""), "\(file) is not listed in Package.swift") }
    }
}
