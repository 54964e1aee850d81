#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Temporary files of killed runs are cleaned up by the next run, a
/// terminated run removes its own, and a file-size limit is an error
/// naming the file (the reliability issue, items 8 and 9).
@Suite struct TempFileAndSignalTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    /// The names in `folder` that look like mqa's temporary files.
    func temporaries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(".tmp-") }.sorted()
    }

    /// A pid no process has: one of a child that has exited and been reaped.
    func deadPid() -> pid_t {
        let child = MQA.start([], program: "/bin/true")
        child.wait()
        #expect(kill(child.pid, 0) != 0 && errno == ESRCH)
        return child.pid
    }

    /// A store of `meetings` simulated meetings.
    func store(meetings: Int) {
        let log = dir.simulated("log.ndjson", meetings: meetings, seed: 5)
        let r = MQA.run(["ingest", "--db", db, log])
        #expect(r.status == 0, "\(r)")
    }

    /// `script` run to the end by `startAsFromAShell`.
    func shell(_ script: String, environment: [String: String]) -> MQA.Result {
        startAsFromAShell(script, environment: environment).wait()
    }

    // MARK: 8a. Stale temporaries of dead pids are removed by the next run

    @Test func theNextExportRemovesStaleTemporariesOnly() throws {
        store(meetings: 2)
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let dead = deadPid()
        let stale = [".export.ndjson.tmp-\(dead)-1", ".other.html.tmp-\(dead)-75"]
        let live = ".export.ndjson.tmp-\(getpid())-1"  // the test runner's: running
        let locked = ".export.ndjson.tmp-\(dead)-2"  // a dead pid's, but locked (another pid namespace)
        let unrelated = ["notes.txt", ".export.ndjson.tmp-x-1", ".tmp-\(dead)-1", "export.ndjson.tmp-\(dead)-1"]
        for name in stale + [live, locked] + unrelated { #expect(FileManager.default.createFile(atPath: out + "/" + name, contents: Data("x".utf8))) }
        let lock = open(out + "/" + locked, O_RDONLY)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)

        let r = MQA.run(["export", "--db", db, "--out", out + "/export.ndjson"])
        #expect(r.status == 0, "\(r)")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: out))
        for name in stale { #expect(!left.contains(name), "stale \(name) kept") }
        for name in [live, locked] + unrelated { #expect(left.contains(name), "\(name) removed") }
        #expect(left.contains("export.ndjson"))
    }

    @Test func theNextSiteRemovesStaleTemporariesInBothFolders() throws {
        store(meetings: 2)
        let site = dir.file("site")
        try FileManager.default.createDirectory(atPath: site + "/tracks", withIntermediateDirectories: true)
        let dead = deadPid()
        let stale = ["/.m-1.html.tmp-\(dead)-3", "/.index.html.tmp-\(dead)-4", "/tracks/.t.html.tmp-\(dead)-5"]
        let kept = ["/.m-1.html.tmp-\(getpid())-3", "/tracks/keep.html"]
        for name in stale + kept { #expect(FileManager.default.createFile(atPath: site + name, contents: Data("x".utf8))) }

        let r = MQA.run(["report", "meeting", "--all", "--db", db, "--format", "html", "--out", site])
        #expect(r.status == 0, "\(r)")
        for name in stale { #expect(!FileManager.default.fileExists(atPath: site + name), "stale \(name) kept") }
        for name in kept { #expect(FileManager.default.fileExists(atPath: site + name), "\(name) removed") }
        #expect(FileManager.default.fileExists(atPath: site + "/index.html"))
    }

    // MARK: 8b. SIGTERM and SIGINT remove the run's own temporary files

    /// Starts `args`, waits until a temporary file shows in one of
    /// `folders`, sends `signo`; returns the result and whether the signal
    /// landed while the temporary file was there.
    func interrupt(_ args: [String], watching folders: [String], with signo: Int32) -> (MQA.Result, Bool) {
        let child = startAsFromAShell("exec \"$MQA\" \"$@\"", arguments: args)
        let deadline = Date().addingTimeInterval(60)
        var seen = false
        while child.isRunning && Date() < deadline {
            if folders.contains(where: { !temporaries($0).isEmpty }) {
                seen = true
                break
            }
            usleep(500)
        }
        kill(child.pid, signo)
        let r = child.wait()
        return (r, seen && r.signal == signo)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalledExportLeavesNoTemporaryFile(signo: Int32) throws {
        store(meetings: 10)
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let (r, landed) = interrupt(["export", "--db", db, "--out", out + "/export.ndjson"], watching: [out], with: signo)
        #expect(landed, "the signal did not land mid-export: \(r)")
        #expect(r.signal == signo, "a signal death, as the shell shows (128 + \(signo)): \(r)")
        #expect(temporaries(out).isEmpty, "left: \(temporaries(out))")
        #expect(!FileManager.default.fileExists(atPath: out + "/export.ndjson"), "a partial export appeared")
    }

    @Test func aTerminatedSiteLeavesNoTemporaryFile() throws {
        store(meetings: 10)
        let site = dir.file("site")
        var landed = 0
        // A page is in flight only for a moment: try a few times.
        for _ in 0..<5 where landed == 0 {
            let (r, hit) = interrupt(["report", "meeting", "--all", "--db", db, "--format", "html", "--out", site],
                                     watching: [site, site + "/tracks"], with: SIGTERM)
            #expect(r.signal == SIGTERM || r.status == 0, "\(r)")
            if hit { landed += 1 }
            #expect(temporaries(site).isEmpty && temporaries(site + "/tracks").isEmpty,
                    "left: \(temporaries(site)) \(temporaries(site + "/tracks"))")
        }
        #expect(landed > 0, "SIGTERM never landed while a page was written")
    }

    // MARK: 9. A file-size limit is an error naming the file

    @Test func exportPastTheFileSizeLimitFailsNamingTheFile() throws {
        store(meetings: 3)
        let target = dir.file("export.ndjson")
        let r = shell("ulimit -f 200; exec \"$MQA\" export --db \"$DB\" --out \"$F\"", environment: ["DB": db, "F": target])
        #expect(r.signal == 0 && r.status == 1, "not exit 1 (SIGXFSZ is 153): \(r)")
        #expect(r.stderr.contains("Error: \(target): File too large"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: target), "a partial export appeared")
        #expect(temporaries(dir.path).isEmpty, "left: \(temporaries(dir.path))")
        // The same export without the limit is bigger than it: the limit was hit.
        let whole = MQA.run(["export", "--db", db])
        #expect(whole.stdout.utf8.count > 200 * 1024, "\(whole.stdout.utf8.count) bytes")
    }

    @Test func exportToStdoutPastTheLimitFails() {
        store(meetings: 3)
        let r = shell("ulimit -f 200; exec \"$MQA\" export --db \"$DB\" > \"$F\"", environment: ["DB": db, "F": dir.file("e.ndjson")])
        #expect(r.signal == 0 && r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: standard output: File too large"), "\(r)")
    }

    /// Ingest under the limit, with only the last commit failing (the
    /// default) or with commits every 2,000 lines (an earlier one fails).
    @Test(arguments: [nil, "2000"] as [String?])
    func ingestPastTheFileSizeLimitNeverExitsZero(commitEvery: String?) {
        let log = dir.simulated("log.ndjson", meetings: 10, seed: 5)
        var env = ["DB": db, "F": log]
        if let commitEvery { env["MQA_COMMIT_EVERY"] = commitEvery }
        let r = shell("ulimit -f 200; exec \"$MQA\" ingest --db \"$DB\" \"$F\"", environment: env)
        // The store cannot hold the log within 200 KiB (it takes ~610 KB):
        // exit 0 would be a silent loss.
        #expect(r.status != 0, "\(r)")
        #expect(temporaries(dir.path).isEmpty, "left: \(temporaries(dir.path))")
        #expect(r.signal == 0 && r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(db): File too large"), "\(r)")
        // What the summary says is stored is what the store holds.
        let stored = MQA.run(["export", "--db", db]).stdout.split(separator: "\n").count
        #expect(r.stdout.contains("events      \(stored) stored"), "\(stored) exported: \(r)")
    }
}

/// Starts `bash -c script bash arguments...` (`$MQA` the binary) with the signal mask and
/// dispositions a shell user's `mqa` gets: nothing blocked, the signals
/// the tests send at their defaults. `MQA.start` passes on the test
/// runner's mask, which blocks SIGTERM, SIGINT and SIGXFSZ on its worker
/// threads: there, a binary without any handling would not die of them
/// either, and these tests would prove nothing.
func startAsFromAShell(_ script: String, arguments: [String] = [], environment: [String: String] = [:]) -> MQA.Child {
    let tag = UUID().uuidString
    let outPath = NSTemporaryDirectory() + "/mqa-out-\(tag)", errPath = NSTemporaryDirectory() + "/mqa-err-\(tag)"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), defaults = sigset_t()
    sigemptyset(&none)
    sigemptyset(&defaults)
    for signo in [SIGINT, SIGTERM, SIGHUP, SIGXFSZ, SIGPIPE] { sigaddset(&defaults, signo) }
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var env = ProcessInfo.processInfo.environment
    env["MQA_DB"] = nil
    env["MQA"] = MQA.binary
    for (k, v) in environment { env[k] = v }
    let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/bash", "-c", script, "bash"] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, "/bin/bash", &actions, &attributes, argv, envp)
    precondition(rc == 0, "cannot start bash: \(String(cString: strerror(rc)))")
    return MQA.Child(pid: pid, outPath: outPath, errPath: errPath)
}
