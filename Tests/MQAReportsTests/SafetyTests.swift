import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

@Suite struct SafetyTests {
    let hostile = MeetingReport(log: Fixtures.hostile, config: TierConfig())

    @Test func csvCellsCannotBeFormulas() {
        for text in [hostile.csv, try! TrackReport(meeting: hostile, track: "../../etc/passwd").csv,
                     FleetReport(entries: [FleetEntry(hostile)]).csv] {
            for line in text.split(separator: "\n").dropFirst() {
                for field in csvFields(String(line)) {
                    guard let first = field.first else { continue }
                    if Double(field) != nil { continue }  // numbers are numbers
                    #expect(!"=+-@\t\r".contains(first), "formula-like cell \(field)")
                }
            }
        }
        #expect(hostile.csv.contains("'=HYPERLINK"))
        #expect(hostile.csv.contains("'-2+3"))
    }

    @Test func markdownKeepsHostileTextInItsCell() {
        let md = hostile.markdown
        #expect(md.contains("\\<script>"))  // the heading is escaped: no tag can open
        #expect(!md.replacingOccurrences(of: "\\<", with: "").contains("<script"))
        for line in md.split(separator: "\n") where line.hasPrefix("| -2+3 ") {
            #expect(line.split(separator: "|", omittingEmptySubsequences: false).count >= 3)
        }
    }

    /// Escapes only where Markdown gives a character a meaning, so text from
    /// the logs reads unchanged in a terminal and stays inert in a viewer.
    @Test(arguments: [
        ("C:\\work\\board", "C:\\work\\board"),      // a backslash before a letter is literal
        ("a\\*b", "a\\\\\\*b"),                    // before punctuation it would escape it
        ("Customer <external>", "Customer \\<external>"),  // a tag would open; > alone is plain
        ("a < b > c", "a < b > c"),
        ("# pwned", "\\# pwned"), ("issue #5", "issue #5"),
        ("> quote", "\\> quote"), ("  > quote", "  \\> quote"),
        ("![i](http://x/i.png)", "!\\[i\\](http://x/i.png)"),
        ("a|b", "a\\|b"), ("`code`", "\\`code\\`"), ("*bold*", "\\*bold\\*"),
        ("<!-- x -->", "\\<!-- x -->"), ("</td>", "\\</td>"), ("trailing\\", "trailing\\\\"),
        ("snake_case_id", "snake_case_id"),
    ])
    func markdownEscapesOnlyWhereNeeded(_ text: String, _ expected: String) {
        #expect(Markdown.escape(text) == expected)
    }

    @Test(arguments: ["../../etc/passwd", "..", ".", "/", "a/b", "a:b", "", ".hidden", "…ünï", String(repeating: "x", count: 256),
                      "<script>alert(1)</script>", "C:\\Windows\\system32", "...."])
    func safeFileNames(_ id: String) {
        let name = SafeFileName.make(for: id, extension: "html")
        #expect(!name.contains("/") && !name.contains("\\") && !name.contains(".."))
        #expect(!name.hasPrefix("."))
        #expect(name.count <= SafeFileName.maxStemLength + 14)
        #expect(name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        #expect(name.hasSuffix(".html"))
    }

    @Test func collidingIdsGetDifferentNames() {
        #expect(SafeFileName.make(for: "a/b", extension: "md") != SafeFileName.make(for: "a:b", extension: "md"))
        #expect(SafeFileName.make(for: "a/b", extension: "md") == SafeFileName.make(for: "a/b", extension: "md"))
    }

    func tempDir() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mqa-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func batchStaysInsideItsDirectory() throws {
        let root = try tempDir()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("out")
        let writer = try BatchWriter(directory: out.path, format: .html)
        let sfu = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        try writer.write(hostile)
        try writer.write(sfu)
        let index = try writer.writeIndex([FleetEntry(hostile), FleetEntry(sfu)])
        #expect(index == "index.html")
        let inside = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(inside.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["out"])
        for name in inside { #expect(!name.contains("..")) }
        let page = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(xmlError(page) == nil)
        for (_, file) in writer.files { #expect(page.contains("href=\"\(file)\"")) }
    }

    /// A link planted under a report's name, symbolic or hard, is replaced
    /// by the rename of a new file: its target is never written through.
    @Test(arguments: [false, true]) func batchReplacesPlantedLinks(hard: Bool) throws {
        let root = try tempDir()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("out")
        let victim = root.appendingPathComponent("victim.txt")
        try Data("keep".utf8).write(to: victim)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let writer = try BatchWriter(directory: out.path, format: .md)
        let name = writer.fileName(for: hostile.header.meeting)
        let planted = out.appendingPathComponent(name).path
        if hard {
            try FileManager.default.linkItem(atPath: victim.path, toPath: planted)
        } else {
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim.path)
        }
        try writer.write(hostile)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep")
        let attributes = try FileManager.default.attributesOfItem(atPath: planted)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try String(contentsOfFile: planted, encoding: .utf8).hasPrefix("# Meeting"))
    }
}
