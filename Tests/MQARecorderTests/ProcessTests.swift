#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQATestSupport
import Testing

@testable import MQARecorder
import MQABase
import MQAModel

/// The built `recorder-bench` and `mqa` as child processes: a kill can only
/// be tested on a process of its own, and "ingest stores what was recorded"
/// only against the real binary.
@Suite(.serialized) struct ProcessTests {
    static let bench = builtProduct("recorder-bench")
    static let mqa = builtProduct("mqa")

    /// SIGKILL the recorder while it writes and rotates, at three moments:
    /// every finished file holds whole valid lines only, a `.partial` one
    /// whole valid lines up to a cut, and `finishAbandonedFiles` makes the
    /// partial ones uploadable with exactly those lines.
    /// (Batches of ~70 KB into 1 MB files: a kill mostly finds a file open.)
    @Test func killedMidWriteLeavesOnlyWholeLines() throws {
        var partialsSeen = 0
        for afterMs in [150, 400, 900] {
            let dir = TempDir("kill\(afterMs)")
            let child = Child(Self.bench, [
                "--out", dir.path, "--threads", "2", "--events", "100000000", "--buffer", "512",
                "--max-file-bytes", "1000000", "--flush-ms", "5",
            ])
            // The kill times count from the first bytes on disk: on a loaded
            // machine the bench can take longer than 150 ms to start
            // writing, and a kill before then finds nothing to check.
            let started = Date()
            while dir.names.allSatisfy({ dir.bytes($0).isEmpty }) && Date().timeIntervalSince(started) < 30 { usleep(2000) }
            usleep(UInt32(afterMs) * 1000)
            kill(child.pid, SIGKILL)
            let result = child.wait()
            #expect(result.status == -SIGKILL, "the bench ended before the kill: \(result.stderr)")
            let names = dir.names
            #expect(!names.isEmpty)
            partialsSeen += names.filter { $0.hasSuffix(".partial") }.count
            var total = 0
            // A file being written may end inside a line: SIGKILL can stop
            // one write(2) of a batch part-way (the kernel copies page by
            // page); `finishAbandonedFiles` cuts it back to its last whole
            // line, and its whole lines are the ones counted here.
            for name in names {
                total += checkedLines(dir.bytes(name), file: name, allowingCutEnd: name.hasSuffix(".partial")).count
            }
            #expect(total > 0)
            try MeetingRecorder.finishAbandonedFiles(in: dir.url)
            #expect(dir.names.allSatisfy { $0.hasSuffix(".ndjson") })
            #expect(lines(in: dir).count == total)
        }
        #expect(partialsSeen > 0, "no kill found a file being written")
    }

    /// `recorded` in the bench's JSON is what `mqa ingest` stores: every
    /// event line, with no reject and no duplicate; `recorder_dropped` lines
    /// (and the context events, while this build's validator predates
    /// format 1.1) are counted as ignored.
    @Test(arguments: [1, 4])
    func ingestStoresExactlyWhatWasRecorded(threads: Int) throws {
        let dir = TempDir()
        let run = Child(Self.bench, [
            "--out", dir.path, "--threads", String(threads), "--events", "40000", "--buffer", "1024",
        ]).wait()
        try #require(run.status == 0, "\(run.stderr)")
        let last = try #require(run.stdout.split(separator: "\n").last)
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Int])
        let recorded = try #require(figures["recorded"])
        let dropped = try #require(figures["dropped"])
        #expect(figures["p50Ns"] != nil && figures["p99Ns"] != nil)
        #expect(recorded + dropped == 40000)

        let all = lines(in: dir)
        let dropLines = all.filter { $0.event == "recorder_dropped" }
        #expect(all.count - dropLines.count == recorded)
        #expect(dropLines.reduce(0) { $0 + ($1.json["dropped"] as! Int) } == dropped)
        let unknown = all.filter { $0.event != "recorder_dropped" && EventKind(name: $0.event) == nil }.count

        let db = dir.path + "/store.sqlite"
        let files = dir.names.filter { $0.hasSuffix(".ndjson") }.map { dir.path + "/" + $0 }
        let ingest = Child(Self.mqa, ["ingest", "--db", db, "--format", "json"] + files).wait()
        #expect(ingest.status == 0, "\(ingest.stderr)")
        // The summary's counters (it also holds per-format objects).
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(ingest.stdout.utf8)) as? [String: Any], "\(ingest.stdout)")
            .compactMapValues { $0 as? Int }
        #expect(summary["rejected"] == 0)
        #expect(summary["duplicates"] == 0)
        #expect(summary["events"] == recorded - unknown)
        #expect(summary["ignored"] == dropLines.count + unknown)
        #expect(summary["lines"] == all.count)
    }
}
