import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa tune --grid FILE [--target TIER] [--lead-ms N] [--partials]`,
/// `mqa tune --merge FILE...`
enum TuneCommand {
    static let spec = CommandSpec(
        name: "tune",
        abstract: "Sweep tier configs and score each against the video stalls that happened.",
        discussion: """
            The grid file gives, for any config key, a list of candidate values, e.g.
              {"hysteresis": [0, 0.1, 0.2], "upDwell": [1, 2, 3],
               "thresholds": [[4.0, 3.6, 3.1, 2.6], [4.2, 3.8, 3.3, 2.8]]}
            Every combination (the keys the grid leaves out at their defaults, or at
            --config's values when given) is run over every meeting in the store (with
            --since/--until, those that started in that window). An alarm is a change
            from above --target to --target or worse; a stall is covered when its
            subscriber's tier was --target or worse in the --lead-ms before it; an
            alarm is useful when a stall of that client follows within --lead-ms.
            Results are ranked by F1 (then recall, then fewer alarms per hour); in md
            output '*' marks the Pareto front of recall against alarms per hour: the
            configs no other config beats on both.

            To tune over a fleet kept in several stores (e.g. the shards of a Spark job),
            run --partials on each: it prints, per config, the counts the score is made
            of (alarms, stalls, covered, useful, flaps, warm ms, lead times as a 1 ms
            histogram) and the grid itself, as JSON. Then --merge FILE... adds them up
            and ranks the sum exactly as one run over all the meetings would: the same
            F1, Pareto front and median lead, equal to the bit. Each meeting must be in
            exactly one of the stores.
            """,
        arguments: [("FILE...", "With --merge: partials files written by --partials.")],
        maxPositionals: nil,
        options: [Options.db, base, Options.since, Options.until, Options.tz, grid, target, leadMs, top, format, partials, merge, by, Options.out],
        examples: [
            ("Score the configs of a grid against the stalls, best first", "mqa tune --grid grid.json -n 5"),
            ("Rank per network type, over last week's meetings", "mqa tune --grid grid.json --by netType --since -1w"),
        ])

    /// `--by FIELD`: the sweep per cohort (`TuneCohortsReport`).
    static let by = Option<CohortField>.choice(
        "--by", value: "FIELD", help: "Rank the configs per value of this client field (format 1.2) or the engine; a client whose value changed (its network, or a rejoin as another client) counts under each, for its time there.",
        CohortField.allCases.map { ($0.rawValue, $0) }, defaultText: "the whole fleet")

    /// `--config` as a sweep reads it (read through `Options.config`,
    /// whose name it has).
    static let base = Option<String>.path(
        "--config", value: "FILE", help: "The values of the keys the grid leaves out: a tier config JSON (any subset of keys; "
            + "see Docs/tiers.md).", defaultText: "the spec's defaults")

    static let grid = Option<String>.path("--grid", value: "FILE", help: "The grid JSON (required, except with --merge).")
    // No tier is above excellent, so it could never raise an alarm.
    static let target = Option<Tier>.choice(
        "--target", value: "TIER", help: "Alarm tier.", [Tier.good, .fair, .poor, .bad].map { ($0.name, $0) },
        default: TuningOptions().target, defaultText: TuningOptions().target.name)
    static let leadMs = Option<Int64>.integer(
        "--lead-ms", value: "N", help: "How long before a stall an alarm counts.", range: 0...86_400_000,
        default: TuningOptions().leadMs)
    static let top = Option<Int>.integer(
        "-n", "--top", value: "N", help: "Show only the N best (md and csv).", range: 1...Int.max, default: Int.max, defaultText: "all")
    static let format = Options.format(["md", "json", "csv"])
    static let partials = Option<Bool>.flag(
        "--partials", help: "Print the additive counts per config (JSON), to be merged with --merge.")
    static let merge = Option<Bool>.flag(
        "--merge", help: "Rank the sum of the partials files given as arguments (no store is read).")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        try run(args, context, alsoWriting: [])
    }

    /// `run`, writing the ranking also to each `(format, path)` of
    /// `alsoWriting` (the demo's tune.md and tune.json, from one sweep).
    static func run(_ args: ParsedArguments, _ context: CommandContext, alsoWriting extra: [(format: String, path: String)]) throws -> Int32 {
        if try args.get(Self.merge) { return try merge(args, context) }
        guard args.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(args.positionals[0])' (files are read only with --merge)")
        }
        let gridPath: String = try args.get(Self.grid)
        let partials: Bool = try args.get(Self.partials)
        let format: String = try args.get(Self.format)
        // Partials are JSON only: another format, given or told by the
        // extension of --out, is a mistake.
        if partials { try args.requireJSON(Self.format, with: "--partials") }
        // Partials carry every config, to be ranked at the merge.
        if partials && args.isGiven(Self.top) { throw UsageError("'--top' does not go with --partials: give it to --merge") }
        let options = TuningOptions(target: try args.get(Self.target), leadMs: try args.get(Self.leadMs))
        if let problem = options.problem { throw UsageError(problem) }
        let top: Int = try args.get(Self.top)
        let data = try CommandContext.readFile(gridPath, what: "grid file")
        let grid: TuningGrid
        do {
            grid = try TuningGrid.parse(data)
        } catch {
            // The file named, as for --config.
            throw UsageError("\(gridPath): \(error)")
        }
        let base = grid.leftOut(of: try context.tierConfig(args))
        let configs = grid.configs(base: base)
        let window = try context.timeWindow(args)
        // Partials of a store without meetings are zeros, as of an empty window.
        let store = try context.openStore(args, requireMeetings: !partials)
        let meetings = try store.meetings(startingIn: window)
        // A sweep over nothing would rank every config at F1 0. Partials
        // of nothing are a shard's true answer (a window another shard's
        // meetings fill): zeros that add nothing when merged.
        if meetings.isEmpty && !partials { throw StoreError.noMeetingInWindow(since: window.since, until: window.until) }

        let started = Date()
        let progress = context.stderr.isTerminal
        // Each meeting comes without its reports, and each client's are
        // read in its turn: a 2,000-viewer webinar is held a client at a
        // time (287 MB whole).
        func forEachLog(_ body: (MeetingLog, EventStore.StoredReports) throws -> Void) throws {
            for (i, meeting) in meetings.enumerated() {
                if let (log, reports) = try store.meetingLogWithoutReports(meeting) { try body(log, reports) }
                if progress && i % 50 == 0 {
                    context.stderr.write("\rloading meetings \(i + 1)/\(meetings.count)")
                    context.stderr.flush()
                }
            }
        }
        // Columns are reserved for what the first batch will hold, read
        // from the store's counts until that many are found.
        func reportsToReserve(upTo limit: Int) throws -> Int {
            var n = 0
            for meeting in meetings where n < limit { n += try store.reportCount(meeting: meeting) }
            return n
        }
        if let field = args.value(Self.by) {
            if partials { throw UsageError("give either --by or --partials, not both") }
            let batch = TuningTally(configs: configs, options: options).batchReports
            var builder = CohortTuning.Builder(by: field, configs: configs, options: options,
                                               reports: try reportsToReserve(upTo: batch))
            try forEachLog { log, reports in try builder.add(log, walking: { try reports.walk($0, of: log) }) }
            if progress { context.stderr.write("\r\u{1B}[K") }
            let tuning = builder.finish()
            // Ten rows a value unless --top says: a table per value of every
            // config would bury the best under a grid's hundreds.
            var report = TuneCohortsReport(tuning, keys: grid.axes.map(\.key), top: args.isGiven(Self.top) ? top : 10)
            report.base = base
            let out = try context.output(args)
            out.write(report.render(ReportFormat(rawValue: format) ?? .md))
            out.flush()
            return ExitCode.success
        }
        // Each meeting is flattened into a batch as it is read, and let go;
        // each batch is counted when full: holding every log first took
        // 181 MB for 300 meetings, holding the whole corpus 370 MB for 3,000.
        var meetingIDs: [String] = []
        var tally = TuningTally(configs: configs, options: options)
        tally.reserve(reports: try reportsToReserve(upTo: tally.batchReports))
        try forEachLog { log, reports in
            meetingIDs.append(log.meeting)
            try tally.add(log, walking: { try reports.walk($0, of: log) })
        }
        if progress { context.stderr.write("\r\u{1B}[Kscoring \(configs.count) configs…") }
        context.stderr.flush()
        let counts = tally.finish(medianLeadOnly: !partials)
        if progress { context.stderr.write("\r\u{1B}[K") }
        let seconds = tally.countingTime / .seconds(1)
        // A step is one report through one config's machine: reports
        // without a measured RTT take none (the corpus holds none).
        let steps = Double(tally.sweptReportCount) * Double(configs.count)
        context.stderr.write(String(
            format: "tune: %d configs × %d reports = %.0f steps in %.2f s (%.1fM steps/s); loading took %.2f s\n",
            configs.count, tally.sweptReportCount, steps, seconds, steps / max(seconds, 1e-9) / 1e6,
            max(0, Date().timeIntervalSince(started) - seconds)))

        let out = try context.output(args)
        if partials {
            // The grid's bytes travel inside the file, so that a merge ranks
            // exactly these configs.
            guard let gridText = String(data: data, encoding: .utf8) else { throw UsageError("the grid file is not UTF-8") }
            var part = TuningPartials(grid: gridText, target: options.target, leadMs: options.leadMs,
                                      meetings: meetingIDs.count, reports: tally.reportCount,
                                      connections: tally.connectionCount, counts: counts, meetingIDs: meetingIDs)
            part.base = base
            part.write(configs: configs, to: out)
            out.flush()
            return ExitCode.success
        }
        // The same ranking as `Tuning.sweep`, from the counts just made.
        let results = Tuning.rank(configs: configs, scores: counts.map(TuningScore.init))
        let figures = TuneReport.Figures(configs: configs.count, stalls: tally.stallCount, reports: tally.reportCount,
                              connections: tally.connectionCount, options: options)
        write(results, keys: grid.axes.map(\.key), figures: figures, base: base, format: format, top: top, to: out)
        for (format, path) in extra {
            let sink = try OutputSink(path: path)
            context.outputs.sinks.append(sink)  // renamed into place when the caller closes it
            write(results, keys: grid.axes.map(\.key), figures: figures, base: base, format: format, top: top, to: sink)
        }
        return ExitCode.success
    }

    /// `mqa tune --merge FILE...`: no store, only the partials.
    static func merge(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let storeOptions: [any OptionDeclaration] = [grid, target, leadMs, Options.config, Options.db, Options.since, Options.until]
        for option in storeOptions where args.isGiven(option) {
            throw UsageError("'\(option.spec.primary)' does not go with --merge: the partials carry it")
        }
        if args.isGiven(by) {
            throw UsageError("'--by' does not go with --merge: partials hold no cohorts; give --by to a tune of one store")
        }
        if try args.get(Self.partials) { throw UsageError("give either --partials or --merge, not both") }
        guard !args.positionals.isEmpty else { throw UsageError("--merge needs at least one partials file") }
        let format: String = try args.get(Self.format)
        let top: Int = try args.get(Self.top)
        var parts: [TuningPartials] = []
        // The same file (the same bytes) given twice would count its
        // meetings twice: said by name, also for files of an mqa that
        // wrote no meeting ids (the merge checks those).
        var seen: [Data: String] = [:]
        for path in args.positionals {
            let data = try CommandContext.readFile(path, what: "partials file")
            let part = try TuningPartials.parse(data, source: path)
            // Two shards without meetings write the same zeros: no meeting
            // to count twice.
            if part.meetings > 0, let first = seen[data] {
                // Bad data, not a bad command line (exit 1, as a meeting in
                // two cohort partials files is).
                throw TuningPartialsError("'\(path)' holds the same partials as '\(first)': its meetings would be counted twice")
            }
            seen[data] = path
            parts.append(part)
        }
        let total = try TuningPartials.merge(parts, names: args.positionals)
        // A ranking of nothing would put every config at F1 0.
        if total.meetings == 0 { throw TuningPartialsError("the partials hold no meeting: nothing to rank") }
        let grid = try TuningGrid.parse(Data(total.grid.utf8))
        let results = try total.results()
        context.stderr.write("tune: merged \(parts.count) partials: \(total.meetings) meetings, \(total.reports) reports\n")
        let figures = TuneReport.Figures(configs: results.count, stalls: total.stalls, reports: total.reports,
                              connections: total.connections,
                              options: TuningOptions(target: total.target, leadMs: total.leadMs))
        write(results, keys: grid.axes.map(\.key), figures: figures, base: total.base, format: format, top: top,
              to: try context.output(args))
        return ExitCode.success
    }
    /// The ranked results in md, json or csv.
    static func write(_ results: [TuningResult], keys: [String], figures: TuneReport.Figures, base: TierConfig, format: String,
                      top: Int, to out: OutputSink) {
        var report = TuneReport(results, keys: keys, figures: figures, top: top)
        report.base = base
        out.write(report.render(ReportFormat(rawValue: format) ?? .md))
        out.flush()
    }
}
