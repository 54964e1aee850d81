import Foundation
import MQASimulator
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa demo [--out DIR]`: the whole pipeline on simulated data, by running
/// the other commands exactly as a user would.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Simulate a fleet, ingest it and write every report, in one go.",
        discussion: """
            Writes into DIR: logs/ (the simulated event logs), mqa.sqlite (the store),
            site/ (the HTML report site: index.html ranks the meetings and links each
            meeting's page, which links its tracks' pages), reports/ (single-file reports:
            the fleet ranking, the worst meeting in every format, a track, the cohorts by
            SDK version, SDK 5.3.0 compared with 5.2.3, the trends per day, and one
            Markdown report per meeting) and tuning/ (a threshold sweep against the stalls).
            DIR must be new, empty, or an earlier demo's folder, whose files are replaced.
            Deterministic: the same --seed gives the same files.
            """,
        options: [out, meetings, seed],
        examples: [
            ("Everything on 24 simulated meetings, in one folder", "mqa demo --out demo"),
        ])

    static let out = Option<String>.path("-o", "--out", value: "DIR", help: "Where to write.", default: "demo", defaultText: "./demo")
    static let meetings = Option<Int>.integer(
        "--meetings", value: "N", help: "How many meetings to simulate.", range: 1...100_000, default: 24)
    static let seed = Option<UInt64>.integer("--seed", value: "S", help: "Random seed.", range: 0...UInt64.max, default: Simulator.defaultSeed)

    static let command = Subcommand(spec: spec, run: run)

    /// The demo's tuning grid: the knobs an app engineer turns first.
    static let grid = """
        {
          "thresholds": [[4.0, 3.6, 3.1, 2.6], [4.2, 3.8, 3.3, 2.8], [3.8, 3.4, 2.9, 2.4]],
          "hysteresis": [0, 0.1, 0.2],
          "downDwell": [1, 2],
          "upDwell": [1, 2, 3]
        }
        """

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let dir: String = try args.get(Self.out)
        // A folder of many files: standard output cannot hold it.
        if dir == "-" { throw UsageError("'--out' must be a folder for the demo's files, got '-'") }
        let meetings: Int = try args.get(Self.meetings)
        let seed = String(try args.get(Self.seed))
        // Its reports read $MQA_TZ: an unknown zone is refused now, not
        // after the simulation and the ingest, with half a demo written.
        _ = try context.zone(args)
        let fm = FileManager.default
        let db = dir + "/mqa.sqlite"
        // A fresh folder each time, so the demo's files are the seed's and
        // no page of an earlier run lingers beside them.
        try onDisk(dir) { try clearEarlierDemo(in: dir) }
        for sub in ["", "/reports/meetings", "/tuning"] {
            try onDisk(dir + sub) { try fm.createDirectory(atPath: dir + sub, withIntermediateDirectories: true) }
        }
        let say = { (text: String) in
            context.stderr.write(text + "\n")
            context.stderr.flush()
        }
        // The first step that did not do everything (say a page of the site
        // that could not be written): the demo's exit status, never 0.
        var incomplete: Int32?
        /// Runs one subcommand; its output files are renamed into place
        /// as soon as it has finished, as `mqa` itself does.
        func step(_ command: Subcommand, _ words: [String]) throws {
            let parsed = try command.spec.parse(words)
            let code = try command.run(parsed, context)
            for sink in context.outputs.sinks { try sink.close() }
            context.outputs.sinks.removeAll()
            if code != ExitCode.success && incomplete == nil { incomplete = code }
            // What the step freed goes back to the system, as it would at
            // the end of a process of its own: kept by the allocator's
            // arenas, the ingest's and the site's left 133 MB resident
            // when the tuning began, and the 300-meeting demo peaked at
            // 190 MB where no step alone takes 90.
            FreedMemory.release()
        }

        // Marked as a run under way (written before anything was removed,
        // in `clearEarlierDemo`, or here in a new folder) until this run's
        // list is written: a run killed before that (Ctrl-C) left files no
        // list holds, which the next run would refuse as the user's; it
        // removes the folders whole.
        try writeMarker(in: dir, [runningLine])
        // What this run wrote, listed however it ends (a failed step, a
        // usage error), so that the next run removes that and no other file.
        defer {
            if let written = try? demoFiles(in: dir).filter({ $0 != marker && !isTemporary($0) }) {
                try? writeMarker(in: dir, written)
            }
        }

        say("1/5 simulating \(meetings) meetings (seed \(seed))…")
        try step(SimulateCommand.command, ["--meetings", String(meetings), "--seed", seed, "--out", dir + "/logs"])

        say("2/5 ingesting into \(db)…")
        let files = try logFiles(in: dir + "/logs")
        let quiet = CommandContext(environment: context.environment, stdout: try OutputSink(path: dir + "/ingest-summary.txt"), stderr: context.stderr)
        let ingest = try IngestCommand.command.run(try IngestCommand.spec.parse(["--db", db] + files), quiet)
        try quiet.stdout.close()
        guard ingest == ExitCode.success || ingest == ExitCode.rejectedLines else { return ingest }

        say("3/5 writing reports…")
        try writeReports(db: db, dir: dir, step: step)

        say("4/5 tuning tier thresholds against the stalls…")
        try onDisk(dir + "/tuning/grid.json") { try grid.write(toFile: dir + "/tuning/grid.json", atomically: true, encoding: .utf8) }
        // One sweep, written as md and as JSON (two runs swept twice).
        let tune = Subcommand(spec: TuneCommand.spec) { args, context in
            try TuneCommand.run(args, context, alsoWriting: [("json", dir + "/tuning/tune.json")])
        }
        try step(tune, ["--db", db, "--grid", dir + "/tuning/grid.json", "--out", dir + "/tuning/tune.md"])

        say("5/5 done.")
        context.stdout.write(guide(dir: dir, db: db))
        context.stdout.flush()
        return incomplete ?? ExitCode.success
    }

    /// Step 3: every kind of report on the demo's store, each written by
    /// its own subcommand as a user would run it.
    static func writeReports(db: String, dir: String, step: (Subcommand, [String]) throws -> Void) throws {
        try step(ReportFleetCommand.command, ["--db", db, "--format", "md", "--out", dir + "/reports/fleet.md"])
        try step(ReportFleetCommand.command, ["--db", db, "--format", "html", "--out", dir + "/reports/fleet.html"])
        try step(ReportMeetingCommand.command, ["--db", db, "--all", "--format", "html", "--out", dir + "/site"])
        try step(ReportMeetingCommand.command, ["--db", db, "--all", "--format", "md", "--out", dir + "/reports/meetings"])
        let store = try EventStore.openExisting(path: db)
        if let worst = try worstMeeting(store) {
            for format in ["md", "html", "json", "csv"] {
                try step(ReportMeetingCommand.command, ["--db", db, worst, "--format", format, "--out", dir + "/reports/worst-meeting.\(format)"])
            }
            try step(TiersCommand.command, ["--db", db, "--meeting", worst, "--out", dir + "/reports/worst-meeting-tiers.md"])
        }
        if let (meeting, track) = try busiestTrack(store) {
            try step(ReportTrackCommand.command, ["--db", db, track, "--meeting", meeting, "--format", "html", "--out", dir + "/reports/track.html"])
            try step(ReportTrackCommand.command, ["--db", db, track, "--meeting", meeting, "--format", "md", "--out", dir + "/reports/track.md"])
        }

        // The fleet's questions: the simulator plants an SDK 5.3.0 stall
        // regression and lossier cellular links (Docs/cohorts.md).
        try step(ReportCohortsCommand.command, ["--db", db, "--by", "sdkVersion", "--out", dir + "/reports/cohorts.md"])
        try step(ReportTrendsCommand.command, ["--db", db, "--out", dir + "/reports/trends.md"])
        let versions = Set(try store.cohortMeetings(splitting: []).flatMap { $0.participants.compactMap(\.client.sdkVersion) })
        if versions.isSuperset(of: ["5.2.3", "5.3.0"]) {
            try step(CompareCommand.command, ["--db", db, "--by", "sdkVersion", "5.2.3", "5.3.0", "--out", dir + "/reports/compare.md"])
        }
    }

    /// What the demo wrote, and where to start.
    static func guide(dir: String, db: String) -> String {
        """
            Demo written to \(dir)/:
              ingest-summary.txt          what ingest stored, rejected and dropped
              site/index.html             start here: every meeting ranked, worst first, each linking
                                          its report, which links its tracks
              reports/fleet.md (.html)    the ranking as one file
              reports/worst-meeting.html  the worst meeting's report (also .md, .json, .csv)
              reports/meetings/index.md   one Markdown report per meeting, for a terminal
              reports/track.html (.md)    the busiest video track, per subscriber
              reports/cohorts.md          per SDK version: stall rate, poor/bad, MOS, with 95 % intervals
                                          (site/cohorts.html: every client field but device; site/trends.html: per day or week)
              reports/compare.md          SDK 5.3.0 against 5.2.3: ratios, intervals, a verdict
              reports/trends.md           the fleet per day
              tuning/tune.md (.json)      tier configs scored against the video stalls
              mqa.sqlite                  the store: try `mqa query --list --db \(db)`

            """
    }

    /// The file that marks a folder as the demo's own: while a run writes
    /// the folder, `runningMark` and its pid; then the files that run wrote
    /// (paths below the folder, a line each). Older demos left it empty.
    static let marker = ".mqa-demo"

    /// The start of the marker's only line while a run writes the folder;
    /// the process id follows.
    static let runningMark = "# a demo run is writing this folder: pid "
    static var runningLine: String { runningMark + String(getpid()) }

    /// Replaces the marker with `lines`, whole or not at all.
    static func writeMarker(in dir: String, _ lines: [String]) throws {
        let file = try AtomicFile(path: dir + "/" + marker)
        let text = lines.map { $0 + "\n" }.joined()
        try Array(text.utf8).withUnsafeBytes { try file.write($0) }
        try file.commit()
    }

    /// What the demo writes into its folder, all of it removed before a run.
    static let entries = [marker, "logs", "site", "reports", "tuning", "ingest-summary.txt",
                          "mqa.sqlite", "mqa.sqlite-wal", "mqa.sqlite-shm"]

    /// Runs a Foundation file operation on `path`; its failure reads
    /// "PATH: Not a directory", as every other output error, not as
    /// Foundation's dump of its error object. A usage error passes as it is.
    static func onDisk(_ path: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as UsageError {
            throw error
        } catch {
            throw OutputError(path: path, error: error)
        }
    }

    /// Empties `dir` of an earlier demo's files. A folder that holds anything
    /// else is refused: the demo must not delete a user's own `logs/` or
    /// `reports/` because they were named as its output.
    static func clearEarlierDemo(in dir: String) throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: dir, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw UsageError("'--out' must be a folder, but '\(dir)' is a file")
        }
        let present = try fm.contentsOfDirectory(atPath: dir)
        if present.isEmpty { return }
        // Demos written before the marker existed: their store, logs and summary.
        let olderDemo = ["mqa.sqlite", "logs", "ingest-summary.txt"].allSatisfy(present.contains)
        let foreign = present.filter { !isDemos($0) }.sorted()
        guard present.contains(marker) || olderDemo, foreign.isEmpty else {
            let named = (foreign.isEmpty ? present.sorted() : foreign).prefix(3).joined(separator: ", ")
            throw UsageError("'--out' folder '\(dir)' holds files the demo did not write (\(named)); name a new or empty folder")
        }
        // Inside its folders too: a file the last run did not list is the
        // user's (their own meeting's log in logs/, notes in reports/), and
        // was removed with the folder, exit 0. A marker without a list (an
        // older demo's, or a run's that was killed while it wrote) has
        // nothing to compare with: its folders go whole, as before.
        let lines = (try? String(contentsOfFile: dir + "/" + marker, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        // A run under way, still running: two demos in one folder would
        // remove each other's files.
        if let running = lines.first(where: { $0.hasPrefix(runningMark) }), let pid = pid_t(running.dropFirst(runningMark.count)),
           pid != getpid(), kill(pid, 0) == 0 || errno == EPERM {
            throw UsageError("'--out' folder '\(dir)' is being written by another demo (pid \(pid)); wait for it, or name another folder")
        }
        let listed = Set(lines.filter { !$0.hasPrefix(runningMark) })
        if !listed.isEmpty {
            let unlisted = try demoFiles(in: dir).filter { !listed.contains($0) && !entries.contains($0) && !isTemporary($0) }
            if !unlisted.isEmpty {
                throw UsageError("'--out' folder '\(dir)' holds files the demo did not write (\(unlisted.prefix(3).joined(separator: ", "))); "
                    + "move them out, or name a new or empty folder")
            }
        }
        // Marked as this run's before anything is removed, so a kill from
        // here on leaves the mark that says so, never a folder whose list
        // is gone; the marker is replaced, never removed.
        try writeMarker(in: dir, [runningLine])
        for entry in present where isDemos(entry) && entry != marker {
            // A dead run's temporary file may be gone already (the marker's
            // write clears those of its folder).
            guard (try? fm.attributesOfItem(atPath: dir + "/" + entry)) != nil else { continue }
            try fm.removeItem(atPath: dir + "/" + entry)
        }
    }

    /// Every file below `dir` (links not followed), as a path below it, sorted.
    static func demoFiles(in dir: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: dir) else { return [] }
        var files: [String] = []
        while let entry = walker.nextObject() as? String {
            if walker.fileAttributes?[.type] as? FileAttributeType != .typeDirectory { files.append(entry) }
        }
        return files.sorted()
    }

    /// A temporary file of an output that a killed run left (`.fleet.md.tmp-…`).
    static func isTemporary(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasPrefix(".") && (name.contains(".tmp-") || name.contains(".creating-"))
    }

    /// One of the demo's entries, or what a killed demo left of one: a
    /// temporary file of an output (`.ingest-summary.txt.tmp-…`) or of the
    /// store's creation (`.mqa.sqlite.creating-…`).
    static func isDemos(_ name: String) -> Bool {
        if entries.contains(name) { return true }
        guard name.hasPrefix(".") else { return false }
        return entries.contains { name.hasPrefix("." + $0 + ".tmp-") || name.hasPrefix("." + $0 + ".creating-") }
    }

    /// The .ndjson files below `dir`, sorted so the ingest order is stable.
    static func logFiles(in dir: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: dir) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            if path.hasSuffix(".ndjson") || path.hasSuffix(".ndjson.zst") { files.append(dir + "/" + path) }
        }
        return files.sorted()
    }

    /// The meeting ranked first by the fleet score (of the stored summaries).
    static func worstMeeting(_ store: EventStore) throws -> String? {
        try store.meetingSummaries()
            .max { ($0.fleetScore.seconds, $1.header.meeting) < ($1.fleetScore.seconds, $0.header.meeting) }?.header.meeting
    }

    /// The meeting and track with the most stalls, for the track report example.
    static func busiestTrack(_ store: EventStore) throws -> (String, String)? {
        var best: (Int, String, String)?
        for meeting in try store.meetings() {
            guard let log = try store.meetingLog(meeting) else { continue }
            var stalls: [String: Int] = [:]
            for client in log.clients {
                for s in client.subscriptions() { stalls[s.track, default: 0] += s.stallCount }
            }
            for (track, count) in stalls where best == nil || count > best!.0 { best = (count, meeting, track) }
        }
        return best.map { ($0.1, $0.2) }
    }
}
