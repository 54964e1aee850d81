import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// What `report cohorts`, `compare` and `report trends` share: the field,
/// the bootstrap's options, and reading the stored cohort figures.
enum CohortOptions {
    static let by = Option<CohortField>.choice(
        "--by", value: "FIELD", help: "Group participants by this client field (format 1.2) or the meeting's engine.",
        CohortField.allCases.map { ($0.rawValue, $0) })
    static let seed = Option<UInt64>.integer(
        "--seed", value: "N", help: "Seed of the bootstrap's resampling.", range: 0...UInt64.max,
        default: BootstrapOptions.defaultSeed)
    static let replicates = Option<Int>.integer(
        "--replicates", value: "N", help: "Bootstrap resamples per interval.", range: 100...100_000,
        default: BootstrapOptions().replicates)

    static let methodHelp = """
        Figures come from the summary tables ingest keeps (default tier config) and the
        clients' meeting_join fields; no quality report is decoded. Intervals are 95 %
        percentile bootstrap intervals that resample whole meetings (participants of one
        meeting share its network and server, so they are not independent); the same
        store, --seed and --replicates give the same intervals. See Docs/cohorts.md.
        """

    static func bootstrap(_ args: ParsedArguments) throws -> BootstrapOptions {
        BootstrapOptions(replicates: try args.get(replicates), seed: try args.get(seed))
    }

    /// The store's cohort figures in the `--since`/`--until` window, stale
    /// summaries redone first (as for `mqa meetings`).
    static func meetings(_ args: ParsedArguments, _ context: CommandContext) throws -> [CohortMeeting] {
        let window = try context.timeWindow(args)
        try EventStore.refreshStaleSummaries(path: try context.databasePath(args))
        let store = try context.openStore(args, requireMeetings: true)
        let meetings = try store.cohortMeetings(startingIn: window) { damage in
            context.stderr.write("Warning: \(TerminalText.escaped(damage.description)); left out\n")
        }
        if meetings.isEmpty, window.since != nil || window.until != nil {
            throw StoreError.noMeetingInWindow(since: window.since, until: window.until)
        }
        return meetings
    }
}

/// `mqa report cohorts --by FIELD`
enum ReportCohortsCommand {
    static let spec = CommandSpec(
        name: "report cohorts",
        abstract: "Per value of a client field: stall rate, time at poor/bad, MOS, disconnects, with 95 % intervals.",
        discussion: """
            Per value of --by (platform, osVersion, sdkVersion, appVersion, device, netType
            or engine): participants, meetings, watched and stalled video time, stall rate
            (stalled / watched), share of warm time at poor/bad, median MOS, share of
            participants with an abnormal disconnect, first-frame p90. Values with enough
            data come first, worst stall rate first; a value seen in fewer than 5 meetings
            or by fewer than 10 participants is marked as having too little data and listed
            after them. Participants without the field are shown as unknown.
            """ + "\n\n" + CohortOptions.methodHelp,
        options: [Options.db, CohortOptions.by.required, Options.since, Options.until, ReportOptions.format, Options.out,
                  CohortOptions.seed, CohortOptions.replicates])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let field: CohortField = try args.get(CohortOptions.by)
        let options = try CohortOptions.bootstrap(args)
        let table = CohortTable(try CohortOptions.meetings(args, context), by: field, options: options)
        try ReportOptions.emit(CohortsReport(table).render(format), args, context)
        return ExitCode.success
    }
}

/// `mqa compare --by FIELD A B [--fail-if-worse]`
enum CompareCommand {
    static let spec = CommandSpec(
        name: "compare",
        abstract: "Compare two values of a client field (B against A), with intervals; a release gate.",
        discussion: """
            Sets the cohort figures of A and B (values of --by) side by side with the ratio
            B/A, its 95 % interval, and whether the difference is significant. Five metrics
            are compared at once, so significance is corrected for that (Holm): the chance
            that any of them is flagged when A and B do not differ stays at most 5 %.
            With --fail-if-worse the exit code is 2 when B is significantly worse than A on
            stall rate, time at poor/bad or abnormal disconnects (a release gate for CI),
            0 otherwise.
            """ + "\n\n" + CohortOptions.methodHelp,
        arguments: [("A", "The baseline value (e.g. 5.2.0)."), ("B", "The value compared with it (e.g. 5.3.0).")],
        minPositionals: 2, maxPositionals: 2,
        options: [Options.db, CohortOptions.by.required, Options.since, Options.until, failIfWorse, ReportOptions.format,
                  Options.out, CohortOptions.seed, CohortOptions.replicates])

    static let failIfWorse = Option<Bool>.flag(
        "--fail-if-worse", help: "Exit 2 when B is significantly worse on a stall, tier or disconnect figure.")
    /// The release gate's exit code.
    static let worse: Int32 = 2

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let field: CohortField = try args.get(CohortOptions.by)
        let (a, b) = (args.positionals[0], args.positionals[1])
        if a == b { throw UsageError("A and B are both '\(a)': give two different values") }
        let options = try CohortOptions.bootstrap(args)
        let meetings = try CohortOptions.meetings(args, context)
        // A value nobody has is a typo far more often than a finding.
        let known = Set(meetings.flatMap { $0.participants.compactMap { field.value(of: $0) } })
        for v in [a, b] where !known.contains(v) {
            let list = known.sorted { CohortTable.valueLess($0, $1, field: field) }
            let hint = Suggestion.closest(to: v, among: list).map { "; did you mean '\($0)'?" } ?? ""
            throw CohortError.noSuchValue(field: field.rawValue, value: v, known: list, hint: hint)
        }
        let comparison = CohortComparison(meetings, by: field, a: a, b: b, options: options)
        try ReportOptions.emit(CompareReport(comparison).render(format), args, context)
        return try args.get(failIfWorse) && comparison.failsGate ? worse : ExitCode.success
    }
}

/// A cohort command asked about a value the store does not hold.
enum CohortError: Error, CustomStringConvertible {
    case noSuchValue(field: String, value: String, known: [String], hint: String)

    var description: String {
        switch self {
        case .noSuchValue(let field, let value, let known, let hint):
            let shown = known.prefix(20).map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
            return "no participant has \(field) '\(TerminalText.escaped(value))'\(hint) (values: \(known.isEmpty ? "none" : shown)\(known.count > 20 ? ", …" : ""))"
        }
    }
}

extension Option {
    /// The same option, which the command line must give.
    var required: Option {
        var o = self
        o.spec.isRequired = true
        return o
    }
}

/// `mqa report trends [--by FIELD] [--every day|week]`
enum ReportTrendsCommand {
    static let spec = CommandSpec(
        name: "report trends",
        abstract: "The fleet's cohort figures per day or week, with 95 % intervals (html: a chart).",
        discussion: """
            Buckets meetings by their start (UTC days, or weeks from Monday) and gives each
            period the figures of 'mqa report cohorts': stall rate, time at poor/bad, MOS,
            abnormal disconnects, first frame, each rate with its 95 % interval. With --by,
            one row per period and value (html: one line per value, the six with the most
            participants). A period with too little data is marked so.
            """ + "\n\n" + CohortOptions.methodHelp,
        options: [Options.db, CohortOptions.optionalBy, every, Options.since, Options.until, ReportOptions.format, Options.out,
                  CohortOptions.seed, CohortOptions.replicates])

    static let every = Option<TrendPeriod>.choice(
        "--every", value: "PERIOD", help: "The period.", TrendPeriod.allCases.map { ($0.rawValue, $0) },
        default: .day, defaultText: "day")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let field = args.value(CohortOptions.optionalBy)
        let table = TrendTable(try CohortOptions.meetings(args, context), every: try args.get(every), by: field,
                               options: try CohortOptions.bootstrap(args))
        try ReportOptions.emit(TrendsReport(table).render(format), args, context)
        return ExitCode.success
    }
}

extension CohortOptions {
    /// `--by` where it may be left out (trends: the whole fleet).
    static let optionalBy = Option<CohortField>.choice(
        "--by", value: "FIELD", help: "Split each period by this client field (format 1.2) or the engine.",
        CohortField.allCases.map { ($0.rawValue, $0) }, defaultText: "the whole fleet")
}
