import Foundation
import Testing

/// `--since`/`--until` windows, against the built binary: a swapped or
/// empty window is a usage error everywhere, and a window with no meeting
/// leaves an existing site as it was.
@Suite struct TimeWindowTests {
    let dir = Scratch()

    @Test func aSwappedWindowIsAUsageErrorEverywhere() {
        let db = dir.file("store.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.write("a.ndjson", Lines.meeting("m-1"))]).status == 0)
        let window = ["--since", "2026-12-01", "--until", "2026-11-01"]
        let grid = dir.write("grid.json", #"{"thresholds": [[4.0, 3.6, 3.1, 2.6]], "hysteresis": [0.1], "upDwell": [2]}"#)
        for command in [["report", "meeting", "--all", "-f", "html", "-o", dir.file("site")], ["report", "fleet"],
                        ["meetings"], ["query", "meetings"], ["tune", "--grid", grid]] {
            let r = MQA.run(command + ["--db", db] + window)
            #expect(r.status == 64, "\(command): \(r)")
            #expect(r.stderr.contains("'--since' (2026-12-01T00:00:00.000Z) must be before '--until'"), "\(command): \(r)")
        }
        let same = MQA.run(["report", "fleet", "--db", db, "--since", "2026-11-01", "--until", "2026-11-01"])
        #expect(same.status == 64, "\(same)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("site")))
    }

    /// A window with no meeting in it leaves an existing site as it was.
    @Test func aWindowWithNoMeetingNeverReplacesTheIndex() throws {
        let db = dir.file("store.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.write("a.ndjson", Lines.meeting("m-1"))]).status == 0)
        let site = dir.file("site")
        #expect(MQA.run(["report", "meeting", "--all", "-f", "html", "-o", site, "--db", db]).status == 0)
        let index = try String(contentsOfFile: site + "/index.html", encoding: .utf8)
        #expect(index.contains("m-1"))
        let r = MQA.run(["report", "meeting", "--all", "-f", "html", "-o", site, "--db", db, "--since", "2030-01-01"])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("no meeting in the store started at or after 2030-01-01T00:00:00.000Z"), "\(r)")
        #expect(try String(contentsOfFile: site + "/index.html", encoding: .utf8) == index)
    }
}
