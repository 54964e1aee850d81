#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQAStore
import Testing

/// A disk that fills up, against the built binary, on small tmpfs mounts
/// (root only): mid-ingest, while a store is made, under a summaries redo
/// and under `simulate`. Nothing is told stored that is not, and a run
/// with room completes what the full disk stopped.
@Suite struct FullDiskTests {
    let dir = Scratch()

    func export(_ db: String) -> String {
        let r = MQA.run(["export", "--db", db])
        #expect(r.status == 0, "\(r)")
        return r.stdout
    }

    /// One file per client of `meetings` simulated meetings, in file order.
    func simulatedLogs(meetings: Int) -> [String] {
        let folder = dir.file("logs")
        let r = MQA.run(["simulate", "--meetings", String(meetings), "--out", folder])
        precondition(r.status == 0, "simulate failed: \(r)")
        let listing = MQA.shell("ls \"$F\"/*/*.ndjson", environment: ["F": folder])
        return listing.stdout.split(separator: "\n").map(String.init)
    }

    /// A small disk: a tmpfs of `kib` KiB mounted on `folder` (created);
    /// false, with why printed, where a test cannot have one (not root, no
    /// mount here). The caller unmounts it (`unmount`).
    func mountSmallDisk(_ folder: String, kib: Int) throws -> Bool {
        guard getuid() == 0 else {
            print("skipped: mounting a small tmpfs needs root")
            return false
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mount = MQA.shell("mount -t tmpfs -o size=\(kib)k tmpfs \"$M\"", environment: ["M": folder])
        if mount.status != 0 { print("skipped: cannot mount a tmpfs here: \(mount.stderr)") }
        return mount.status == 0
    }

    func unmount(_ folder: String) { _ = MQA.shell("umount \"$M\"", environment: ["M": folder]) }

    /// 900 KiB of tmpfs holds about two thirds of the demo's logs: the WAL
    /// write of a COMMIT fails with ENOSPC. It used to be swallowed (exit 0,
    /// a third of the lines missing, `check` clean); now the ingest fails,
    /// its summary counts what the store holds, and a run with room
    /// completes the store to exactly an undisturbed run's.
    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs: needs root")) func aDiskFillingUpMidIngestFailsAndARunWithRoomCompletesIt() throws {
        let mnt = dir.file("small")
        guard try mountSmallDisk(mnt, kib: 900) else { return }
        defer { unmount(mnt) }
        let logs = simulatedLogs(meetings: 24)
        let reference = dir.file("reference.sqlite")
        #expect(MQA.run(["ingest", "--db", reference] + logs).status == 0)
        let expected = export(reference)

        let small = mnt + "/store.sqlite"
        let r = MQA.run(["ingest", "--db", small, "--format", "json"] + logs)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(small): No space left on device"), "\(r)")
        let stored = export(small)
        let storedLines = stored.split(separator: "\n").count
        #expect(storedLines < expected.split(separator: "\n").count, "the disk was expected to fill up")
        #expect(r.counts["events"] == storedLines, "the summary must count only what was committed: \(r.stdout)")
        // The inputs not whole in a commit are told as failed, so a
        // pipeline reading the JSON sees that the run did not do it all.
        let failed = r.counts["failedFiles"] ?? 0
        #expect(failed >= 1 && failed <= logs.count, "\(r.stdout)")
        let check = MQA.run(["check", "--db", small])
        #expect(check.status == 0 && check.stdout.contains("No damage found"), "\(check)")

        // Moved to a disk with room, the same command completes it.
        let roomy = dir.file("roomy")
        try FileManager.default.createDirectory(atPath: roomy, withIntermediateDirectories: true)
        let copy = MQA.shell("cp \"$M\"/store.sqlite* \"$R\"/", environment: ["M": mnt, "R": roomy])
        #expect(copy.status == 0, "\(copy)")
        let again = MQA.run(["ingest", "--db", roomy + "/store.sqlite"] + logs)
        #expect(again.status == 0, "\(again)")
        #expect(export(roomy + "/store.sqlite") == expected)
    }

    /// Inputs skipped as already stored are stored whole: a store failure
    /// right after them (a disk left with 40 KiB) counted them as failed
    /// ("failedFiles" 34 with 7 of them stored), as no commit followed.
    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs: needs root")) func skippedInputsAreNotFailedWhenTheStoreFails() throws {
        let mnt = dir.file("small-skip")
        guard try mountSmallDisk(mnt, kib: 1024) else { return }
        defer { unmount(mnt) }
        let logs = simulatedLogs(meetings: 6)
        try #require(logs.count > 4)
        let small = mnt + "/store.sqlite"
        #expect(MQA.run(["ingest", "--db", small] + logs.prefix(2)).status == 0)
        let fill = MQA.shell(#"dd if=/dev/zero of="$M/fill" bs=1k 2>/dev/null; truncate -s -40K "$M/fill""#, environment: ["M": mnt])
        #expect(fill.status == 0, "\(fill)")
        let r = MQA.run(["ingest", "--db", small, "--format", "json"] + logs)
        #expect(r.status == 1, "\(r)")
        let failed = r.counts["failedFiles"] ?? -1
        #expect(failed >= 1 && failed <= logs.count - 2, "\(r.stdout)")
        // A copy of content first read in the same failed transaction is
        // not stored either: both inputs fail (counted stored at once, the
        // copy was told stored when nothing was).
        let fresh = dir.write("fresh.ndjson", Lines.meeting("m-fresh", reports: 2000))
        let copy = dir.write("copy.ndjson", try String(contentsOfFile: fresh, encoding: .utf8))
        let both = MQA.run(["ingest", "--db", small, "--format", "json", fresh, copy])
        #expect(both.status == 1, "\(both)")
        #expect(both.counts["failedFiles"] == 2, "\(both.stdout)")
    }

    /// A store marked for summaries of newer rules, on a disk too full to
    /// redo them: the listings answer from the older summaries, whatever
    /// room is left (with 48 KiB the redo failed at its COMMIT and every
    /// reading command failed; with 24 KiB the open failed and they
    /// answered).
    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs: needs root")) func olderSummariesAnswerOnAFullDisk() throws {
        let logs = simulatedLogs(meetings: 3)
        let reference = dir.file("reference.sqlite")
        #expect(MQA.run(["ingest", "--db", reference] + logs).status == 0)
        let expected = MQA.run(["meetings", "--db", reference, "-f", "csv"]).stdout
        for free in [16, 24, 48, 64, 96] {
            let mnt = dir.file("full-\(free)")
            guard try mountSmallDisk(mnt, kib: 4096) else { return }
            defer { unmount(mnt) }
            let store = mnt + "/store.sqlite"
            #expect(MQA.shell(#"cp "$R" "$S""#, environment: ["R": reference, "S": store]).status == 0)
            do {
                let db = try Database(path: store, access: .readWrite, create: false)
                try db.execute("PRAGMA journal_mode=DELETE")
                try db.execute("UPDATE meetings SET stale = 1")
            }
            let fill = MQA.shell(#"dd if=/dev/zero of="$M/fill" bs=1k 2>/dev/null; truncate -s -\#(free)K "$M/fill""#, environment: ["M": mnt])
            #expect(fill.status == 0, "\(fill)")
            let r = MQA.run(["meetings", "--db", store, "-f", "csv"])
            #expect(r.status == 0 && r.stdout == expected, "\(free) KiB free: \(r)")
        }
    }

    /// A disk that fills up while the store is being made (120–147 KiB of
    /// tmpfs for one log): the schema's checkpoint failed unseen on close,
    /// and the half-written file was linked into place without the WAL
    /// that held the schema, a store no later run could open. Now no store
    /// is left, the error names it, and a run with room makes it.
    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs: needs root")) func aDiskFullWhileTheStoreIsMadeLeavesNoStore() throws {
        let log = simulatedLogs(meetings: 1)[0]
        let mnt = dir.file("tiny")
        for size in [120, 130, 140, 147] {
            guard try mountSmallDisk(mnt, kib: size) else { return }
            defer { unmount(mnt) }
            let store = mnt + "/store.sqlite"
            let r = MQA.run(["ingest", "--db", store, log])
            if r.status == 0 { continue }  // this size held it after all
            #expect(r.status == 1 && r.stderr.contains("Error: cannot create the store \(store): "), "\(size) KiB: \(r)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: mnt).isEmpty, "\(size) KiB")
            #expect(MQA.shell("mount -o remount,size=100M \"$M\"", environment: ["M": mnt]).status == 0)
            #expect(MQA.run(["ingest", "--db", store, log]).status == 0, "\(size) KiB")
            #expect(MQA.run(["check", "--db", store]).status == 0, "\(size) KiB")
        }
    }

    /// `simulate --out` on a disk that fills up: exit 1 naming the file and
    /// why, and every log it leaves is whole (it wrote them in place: a
    /// log cut mid-line, which a later ingest took for a shorter call).
    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs: needs root")) func simulateOnAFullDiskLeavesOnlyWholeLogs() throws {
        let mnt = dir.file("sim")
        guard try mountSmallDisk(mnt, kib: 1024) else { return }
        defer { unmount(mnt) }
        let r = MQA.run(["simulate", "--meetings", "5", "--seed", "3", "--out", mnt + "/logs"])
        #expect(r.status == 1 && r.stderr.contains(": No space left on device"), "\(r)")
        let full = dir.file("full")
        #expect(MQA.run(["simulate", "--meetings", "5", "--seed", "3", "--out", full]).status == 0)
        let left = MQA.shell("cd \"$M\"/logs && find . -type f | sort", environment: ["M": mnt]).stdout
            .split(separator: "\n").map(String.init)
        #expect(!left.isEmpty)
        for file in left {
            #expect(FileManager.default.contentsEqual(atPath: mnt + "/logs/" + file, andPath: full + "/" + file), "\(file) is cut")
        }
    }
}
