import Foundation
import Testing

/// Hostile ids go through the whole pipeline: SQL only through bound
/// parameters, HTML and CSV escaped, batch output confined to its folder,
/// and no shell-outs anywhere in the product.
@Suite struct SecurityTests {
    static let hostileIDs = [
        "../../escaped", "/tmp/absolute", "a/b/c", "..", ".", "x'; DROP TABLE meetings; --",
        "<script>alert(1)</script>", "=HYPERLINK(\"http://evil\")", "+1+1", "@SUM(A1)", "name\u{0}nul",
        "CON", "dots...", "ünïcödé 会议", String(repeating: "long", count: 64),
    ]

    @Test func hostileIDsStayData() throws {
        let dir = Scratch()
        var log = ""
        for (i, id) in Self.hostileIDs.enumerated() {
            log += Lines.meeting(id, uid: "u\(i)<img src=x onerror=alert(1)>", reports: 3)
        }
        let path = dir.write("hostile.ndjson", log)
        let db = dir.file("store.sqlite")
        let ingest = MQA.run(["ingest", "--db", db, path])
        #expect(ingest.status == 0, "\(ingest)")
        // Every id round-trips: the quote in the SQL-looking id was data.
        let export = MQA.run(["export", "--db", db])
        #expect(export.status == 0)
        #expect(export.stdout.split(separator: "\n").count == Self.hostileIDs.count * 5)

        let outer = dir.file("reports")
        let out = outer + "/inner"
        for format in ["html", "csv", "md", "json"] {
            let r = MQA.run(["report", "meeting", "--all", "--out", out, "--db", db, "--format", format])
            #expect(r.status == 0, "\(format): \(r)")
        }
        // Everything written is inside the folder asked for.
        let outside = try FileManager.default.contentsOfDirectory(atPath: outer)
        #expect(outside == ["inner"], "files outside the output folder: \(outside)")
        let parent = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(Set(parent).isSubset(of: ["hostile.ndjson", "store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "reports"]), "\(parent)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/absolute.html"))
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(files.allSatisfy { !$0.contains("/") && !$0.hasPrefix(".") }, "\(files)")
        #expect(files.filter { $0.hasSuffix(".html") }.count >= Self.hostileIDs.count, "\(files)")
        for f in files where f.hasSuffix(".html") {
            let text = try String(contentsOfFile: out + "/" + f, encoding: .utf8)
            #expect(!text.contains("<script>alert"), "\(f)")
            #expect(!text.contains("<img src=x"), "\(f)")
            #expect(!text.lowercased().contains("<script"), "no script element at all: \(f)")
        }
        for f in files where f.hasSuffix(".csv") {
            let text = try String(contentsOfFile: out + "/" + f, encoding: .utf8)
            for line in text.split(separator: "\n") {
                for cell in line.split(separator: ",", omittingEmptySubsequences: false) {
                    let c = cell.hasPrefix("\"") ? cell.dropFirst() : cell
                    #expect(!(c.hasPrefix("=") || c.hasPrefix("+") || c.hasPrefix("@")), "formula cell in \(f): \(line)")
                }
            }
        }
        // A symbolic link planted in the folder is not followed.
        let target = dir.file("victim.txt")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("keep".utf8)))
        let first = files.first { $0.hasSuffix(".md") }!
        try FileManager.default.removeItem(atPath: out + "/" + first)
        try FileManager.default.createSymbolicLink(atPath: out + "/" + first, withDestinationPath: target)
        _ = MQA.run(["report", "meeting", "--all", "--out", out, "--db", db, "--format", "md"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
    }

    @Test func productNeverShellsOut() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources").path
        let files = FileManager.default.enumerator(atPath: sources)?.allObjects as? [String] ?? []
        #expect(files.count > 20)
        for f in files where f.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + f, encoding: .utf8)
            for banned in ["Process(", "posix_spawn", "popen(", "system(", "execv", "execl", "/bin/sh"] {
                #expect(!text.contains(banned), "\(f) uses \(banned)")
            }
        }
    }
}
