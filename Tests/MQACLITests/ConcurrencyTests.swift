import Foundation
import MQAStore
import Testing

/// WAL: reports read while an ingest writes; two ingests on one store wait
/// for each other (busy timeout) and both finish.
@Suite(.serialized) struct ConcurrencyTests {
    @Test func reportsReadWhileAnIngestWrites() {
        let dir = Scratch()
        let first = dir.write("first.ndjson", Lines.meeting("m-first", reports: 50))
        let big = dir.simulated("big.ndjson", meetings: 4, seed: 21)
        let db = dir.file("store.sqlite")
        #expect(MQA.run(["ingest", "--db", db, first]).status == 0)
        // Big batches: the ingest holds its write transaction for a while.
        let ingest = MQA.start(["ingest", "--db", db, big], environment: ["MQA_COMMIT_EVERY": "4000"])
        var duringIngest = 0
        var reads = 0
        while ingest.isRunning || reads < 3 {
            let r = MQA.run(["report", "meeting", "m-first", "--db", db, "--format", "json"], timeout: 30)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("\"meeting\": \"m-first\""))
            let check = MQA.run(["check", "--db", db], timeout: 30)
            #expect(check.status == 0, "\(check)")
            reads += 1
            if ingest.isRunning { duringIngest += 1 }
            if reads > 200 { break }
        }
        let done = ingest.wait()
        #expect(done.status == 0, "\(done)")
        #expect(duringIngest >= 1, "no report ran while the ingest was writing")
        print("concurrency: \(duringIngest) report+check pairs ran during one ingest")
    }

    /// Reading commands on a store whose summaries are up to date never
    /// wait for a writer: with another connection holding the write lock
    /// in an open transaction, each answers within 30 s, half the minute a
    /// command waiting for the lock would take before giving up. (Timing
    /// the reads against a live ingest instead failed whenever the shared
    /// machine was slow.) Meetings left stale are another matter: the
    /// listings wait to redo them rather than answer without them.
    @Test func readingCommandsDoNotWaitForTheWriteLock() throws {
        let dir = Scratch()
        let db = dir.file("store.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.write("a.ndjson", Lines.meeting("m-first", reports: 50))]).status == 0)
        let writer = try Database(path: db, access: .readWrite, create: false)
        try writer.beginImmediate()
        try writer.execute("UPDATE files SET path = path")
        defer { try? writer.execute("ROLLBACK") }
        for command in [["report", "meeting", "m-first", "-f", "json"], ["report", "fleet"], ["meetings"],
                        ["export"], ["check"], ["query", "meetings"]] {
            let r = MQA.run(command + ["--db", db], timeout: 30)
            #expect(r.status == 0, "\(command): \(r)")
            if command != ["check"] { #expect(r.stdout.contains("m-first"), "\(command): \(r)") }
        }
    }

    @Test func twoIngestsAtOnceBothFinish() {
        let dir = Scratch()
        let a = dir.simulated("a.ndjson", meetings: 2, seed: 31)
        let b = dir.simulated("b.ndjson", meetings: 2, seed: 32)
        let reference = dir.file("reference.sqlite")
        #expect(MQA.run(["ingest", "--db", reference, a, b]).status == 0)
        let expected = MQA.run(["export", "--db", reference]).stdout
        for round in 0..<3 {
            // A fresh store each round: both also race to create it.
            let db = dir.file("store-\(round).sqlite")
            let env = ["MQA_COMMIT_EVERY": round == 0 ? "100000" : "300"]
            let one = MQA.start(["ingest", "--db", db, a], environment: env)
            let two = MQA.start(["ingest", "--db", db, b], environment: env)
            let r1 = one.wait(), r2 = two.wait()
            #expect(r1.status == 0, "round \(round): \(r1)")
            #expect(r2.status == 0, "round \(round): \(r2)")
            #expect(MQA.run(["check", "--db", db]).status == 0)
            #expect(MQA.run(["export", "--db", db]).stdout == expected, "round \(round)")
        }
    }

    @Test func sameFileTwiceAtOnceStoresItOnce() {
        let dir = Scratch()
        let a = dir.write("a.ndjson", Lines.meeting("m-a", reports: 3000) + "bad line\n" + Lines.meeting("m-b", reports: 3000))
        let reference = dir.file("reference.sqlite")
        let ref = MQA.run(["ingest", "--db", reference, "--format", "json", a])
        #expect(ref.status == 3)
        let expected = MQA.run(["export", "--db", reference]).stdout
        let db = dir.file("store.sqlite")
        let env = ["MQA_COMMIT_EVERY": "500"]
        let one = MQA.start(["ingest", "--db", db, a], environment: env)
        let two = MQA.start(["ingest", "--db", db, a], environment: env)
        let r1 = one.wait(), r2 = two.wait()
        #expect([0, 3].contains(r1.status) && [0, 3].contains(r2.status), "\(r1)\n\(r2)")
        #expect(MQA.run(["check", "--db", db]).status == 0)
        #expect(MQA.run(["export", "--db", db]).stdout == expected)
        let rejects = MQA.run(["query", "rejects", "--db", db, "--format", "csv"])
        #expect(rejects.stdout.components(separatedBy: "bad line").count - 1 == 1, "one reject row: \(rejects)")
    }
}
