import Foundation
import Testing

/// `mqa demo --out DIR` owns its folder: a second run replaces the first
/// run's files (no page of another seed lingers), and a folder holding
/// anything else is refused before a file of it is touched.
@Suite struct DemoFolderTests {
    func siteMeetingPages(_ dir: Scratch) throws -> Set<String> {
        let fixed: Set = ["index.html", "participants.html", "cohorts.html", "trends.html"]
        return Set(try FileManager.default.contentsOfDirectory(atPath: dir.file("site"))
            .filter { $0.hasSuffix(".html") && !fixed.contains($0) })
    }

    @Test func aSecondRunLeavesNoPageOfTheFirst() throws {
        let dir = Scratch()
        let first = MQA.run(["demo", "--meetings", "3", "--seed", "5", "--out", dir.path], timeout: 600)
        #expect(first.status == 0, "\(first)")
        let firstPages = try siteMeetingPages(dir)
        #expect(firstPages.count == 3)
        // A page a killed run left (which empties the list of files that
        // the marker holds after a complete run; a file the list does not
        // hold, where it has one, is the user's and is refused).
        dir.write(".mqa-demo", "")
        dir.write("site/tracks/left-over.html", "<html/>")

        let second = MQA.run(["demo", "--meetings", "2", "--seed", "6", "--out", dir.path], timeout: 600)
        #expect(second.status == 0, "\(second)")
        let secondPages = try siteMeetingPages(dir)
        #expect(secondPages.count == 2)
        #expect(secondPages.isDisjoint(with: firstPages))
        #expect(!FileManager.default.fileExists(atPath: dir.file("site/tracks/left-over.html")))
    }

    /// A killed demo leaves temporary files of its own; the next run takes
    /// the folder as the demo's and clears them (it refused the folder).
    @Test func aKilledDemosLeftoversAreItsOwn() throws {
        let dir = Scratch()
        dir.write(".mqa-demo", "")
        dir.write(".ingest-summary.txt.tmp-4242-7", "half")
        dir.write(".mqa.sqlite.creating-4242", "half")
        let r = MQA.run(["demo", "--meetings", "1", "--out", dir.path], timeout: 600)
        #expect(r.status == 0, "\(r)")
        let hidden = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(hidden == [".mqa-demo"], "\(hidden)")
    }

    @Test func aFolderWithOtherFilesIsRefusedUntouched() throws {
        let dir = Scratch()
        dir.write("notes.txt", "mine")
        try FileManager.default.createDirectory(atPath: dir.file("logs"), withIntermediateDirectories: true)
        dir.write("logs/app.ndjson", "{}\n")
        let r = MQA.run(["demo", "--meetings", "1", "--out", dir.path])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains("Error: '--out' folder '\(dir.path)' holds files the demo did not write (notes.txt)"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: dir.file("logs/app.ndjson")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["logs", "notes.txt"])
    }

    @Test func aFileIsNoFolder() {
        let dir = Scratch()
        let file = dir.write("demo", "x")
        let r = MQA.run(["demo", "--out", file])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains("is a file"), "\(r)")
    }

    /// The demo refused a file of the user's at the top of its folder but
    /// removed their files inside logs/ and reports/ with exit 0.
    @Test func theDemoKeepsTheUsersFilesInsideItsFolders() throws {
        let dir = Scratch()
        let out = dir.file("demo")
        #expect(MQA.run(["demo", "--meetings", "2", "--out", out]).status == 0)
        try FileManager.default.createDirectory(atPath: out + "/logs/mine", withIntermediateDirectories: true)
        let mine = dir.write("demo/logs/mine/u.ndjson", Lines.meeting("m-mine"))
        let r = MQA.run(["demo", "--meetings", "2", "--out", out])
        #expect(r.status == 64 && r.stderr.contains("logs/mine/u.ndjson"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: mine))
        try FileManager.default.removeItem(atPath: out + "/logs/mine")
        // Its own files, whatever the run before wrote, go as before.
        let again = MQA.run(["demo", "--meetings", "3", "--out", out])
        #expect(again.status == 0, "\(again)")
    }
}
