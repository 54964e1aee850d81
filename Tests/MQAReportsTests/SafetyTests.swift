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

    /// The readable part alone (the simulator's folders): safe ids kept as
    /// they are, hostile ones cleaned as in `make`, never a way out.
    @Test(arguments: [
        ("m-1f", "m-1f"), ("u-8f02", "u-8f02"), ("../../etc/passwd", "_.__._etc_passwd"), ("..", "_."),
        (".hidden", "_hidden"), ("....", "_._."), ("a/b\\c d", "a_b_c_d"), ("", ""),
        ("é\r\n", "___"), (String(repeating: "x", count: 80), String(repeating: "x", count: 64)),
    ])
    func safeStems(_ id: String, _ expected: String) {
        #expect(SafeFileName.stem(id) == expected)
        #expect(SafeFileName.make(for: id, extension: "md").hasPrefix((expected.isEmpty ? "meeting" : expected) + "-"))
    }

    /// Ids no file system would take as they are: the Spark job names a
    /// meeting's page with `safe_file_name` (Spark/mqa_spark.py), which must
    /// give the name `mqa report meeting --all` gives, or the job's index
    /// links to pages that are not there.
    static let hardIds = [
        "m-42", "../../etc/passwd", "..", ".", "/", "a/b", "a:b", "", ".hidden", "....", "a...b", "…ünï",
        "e\u{301}", "\r\n", "\u{0}\u{1f}\u{7f}", "🙂 face", "C:\\Windows\\system32", "<script>alert(1)</script>",
        "x\u{2028}y", String(repeating: "x", count: 256), String(repeating: "é", count: 70), "." + String(repeating: "a", count: 70),
        String(repeating: ".", count: 65),
    ]

    static let python: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { $0 + "/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: python != nil, "needs python3"))
    func sparkMirrorsTheSafeFileName() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[1])
            from mqa_spark import safe_file_name
            print(json.dumps([safe_file_name(m, 'html') for m in json.load(sys.stdin)]))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python!)
        p.arguments = ["-c", script, root.appendingPathComponent("Spark").path]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: Self.hardIds))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let spark = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
        #expect(spark.count == Self.hardIds.count)
        for (id, name) in zip(Self.hardIds, spark) {
            #expect(name == SafeFileName.make(for: id, extension: "html"), "\(id.debugDescription)")
        }
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
