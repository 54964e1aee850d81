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
        "--seed", value: "N", help: "Seed of the bootstrap's resampling.", range: 0...UInt64(Int64.max),
        default: BootstrapOptions.defaultSeed)
    static let replicates = Option<Int>.integer(
        "--replicates", value: "N", help: "Bootstrap resamples per interval.", range: 100...100_000,
        default: BootstrapOptions().replicates)

    static let methodHelp = """
        Figures come from the summary tables ingest keeps (default tier config) and the
        clients' meeting_join fields; quality reports are decoded only for the clients
        whose value of the field changed (a network, or a rejoin as another client), to
        split their figures by value. Intervals are 95 % percentile bootstrap intervals
        that resample whole meetings (participants of one meeting share its network and
        server, so they are not independent); the same store, --seed and --replicates
        give the same intervals. See Docs/cohorts.md.
        """

    static func bootstrap(_ args: ParsedArguments) throws -> BootstrapOptions {
        BootstrapOptions(replicates: try args.get(replicates), seed: try args.get(seed))
    }

    /// The store's cohort figures in the `--since`/`--until` window, stale
    /// summaries redone first (as for `mqa meetings`).
    /// `splitting`: the fields by which participants whose value changed
    /// are split (`CohortParticipant.split`); only a grouping by that field
    /// and the partials read the pieces, and making them reanalyses those
    /// clients.
    static func meetings(_ args: ParsedArguments, _ context: CommandContext,
                         splitting: [CohortField]) throws -> [CohortMeeting] {
        let window = try context.timeWindow(args)
        try EventStore.refreshStaleSummaries(path: try context.databasePath(args))
        let store = try context.openStore(args, requireMeetings: true)
        let meetings = try store.cohortMeetings(startingIn: window, splitting: splitting) { damage in
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
            after them. Participants without the field are shown as unknown. Each figure
            counts under the value that held when it was measured (the last join naming
            the field, or for netType the last network_change, before it; unknown until
            one names it): a participant who changed network, or rejoined from another
            device or SDK, counts under each.
            """ + "\n\n" + CohortOptions.methodHelp + "\n\n" + CohortOptions.partialsHelp,
        arguments: [("FILE...", "With --merge: partials files written by --partials.")],
        maxPositionals: nil,
        options: [Options.db, CohortOptions.partialsBy, Options.since, Options.until, Options.tzForTypedTimes, ReportOptions.format, Options.out,
                  CohortOptions.seed, CohortOptions.replicates, CohortOptions.partials, CohortOptions.merge])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        if let written = try CohortOptions.writePartials(args, context) { return written }
        let format: ReportFormat = try args.get(ReportOptions.format)
        guard let field = args.value(CohortOptions.partialsBy) else {
            throw UsageError("missing '\(CohortOptions.partialsBy.spec.synopsis)'")
        }
        let options = try CohortOptions.bootstrap(args)
        let table = CohortTable(try CohortOptions.summedMeetings(args, context, by: field), by: field, options: options)
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
            With --merge, the values are compared over partials files ('mqa report cohorts
            --partials' of stores of disjoint meetings), given after A and B: the result is
            the one store's of all those meetings.
            """ + "\n\n" + CohortOptions.methodHelp,
        arguments: [("A", "The baseline value (e.g. 5.2.0)."), ("B", "The value compared with it (e.g. 5.3.0)."),
                    ("FILE...", "With --merge: partials files written by 'report cohorts --partials'.")],
        minPositionals: 2, maxPositionals: nil,
        options: [Options.db, CohortOptions.by.required, Options.since, Options.until, Options.tzForTypedTimes, failIfWorse, ReportOptions.format,
                  Options.out, CohortOptions.seed, CohortOptions.replicates, CohortOptions.merge])

    static let failIfWorse = Option<Bool>.flag(
        "--fail-if-worse", help: "Exit 2 when B is significantly worse on a stall, tier or disconnect figure.")
    /// The release gate's exit code.
    static let worse: Int32 = 2

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let field: CohortField = try args.get(CohortOptions.by)
        let (a, b) = (args.positionals[0], args.positionals[1])
        // No value of a cohort field is empty (1 to 256 characters): a usage
        // error, as a script whose variable came out empty should learn.
        for (name, v) in [("A", a), ("B", b)] where v.isEmpty {
            throw UsageError("\(name) is empty: give a value of \(field.rawValue) (1 to 256 characters)")
        }
        if a == b { throw UsageError("A and B are both '\(a)': give two different values") }
        let merging: Bool = try args.get(CohortOptions.merge)
        if !merging, args.positionals.count > 2 {
            throw UsageError("unexpected argument '\(args.positionals[2])' (files are read only with --merge)")
        }
        let options = try CohortOptions.bootstrap(args)
        let meetings: [CohortMeetingSums]
        if merging {
            try CohortOptions.checkMerge(args, files: Array(args.positionals.dropFirst(2)))
            meetings = try CohortOptions.merged(Array(args.positionals.dropFirst(2)), context)
        } else {
            meetings = try CohortOptions.meetings(args, context, splitting: [field]).map(CohortMeetingSums.init)
        }
        // A value nobody has is a typo far more often than a finding.
        // The values the field's cohorts have (a participant split by
        // the field names no cohort by its whole profile).
        let known = Set(meetings.flatMap { m in
            m.profiles.compactMap { $0.profile.counts(toward: field) ? field.value(of: $0.profile) : nil }
        })
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
            """ + "\n\n" + CohortOptions.methodHelp + "\n\n" + CohortOptions.partialsHelp,
        arguments: [("FILE...", "With --merge: partials files written by --partials.")],
        maxPositionals: nil,
        options: [Options.db, CohortOptions.optionalBy, every, Options.since, Options.until, Options.tzForPeriods, ReportOptions.format, Options.out,
                  CohortOptions.seed, CohortOptions.replicates, CohortOptions.partials, CohortOptions.merge])

    static let every = Option<TrendPeriod>.choice(
        "--every", value: "PERIOD", help: "The period.", TrendPeriod.allCases.map { ($0.rawValue, $0) },
        default: .day, defaultText: "day")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        if args.isGiven(every), try args.get(CohortOptions.partials) {
            throw UsageError("'--every' does not go with --partials: the partials keep each meeting's start; give it to --merge")
        }
        if let written = try CohortOptions.writePartials(args, context) { return written }
        let format: ReportFormat = try args.get(ReportOptions.format)
        let field = args.value(CohortOptions.optionalBy)
        let table = TrendTable(try CohortOptions.summedMeetings(args, context, by: field), every: try args.get(every), by: field,
                               options: try CohortOptions.bootstrap(args), zone: try context.zone(args))
        try ReportOptions.emit(TrendsReport(table).render(format), args, context)
        return ExitCode.success
    }
}

extension CohortOptions {
    /// `--by` where it may be left out (trends: the whole fleet).
    static let optionalBy = Option<CohortField>.choice(
        "--by", value: "FIELD", help: "Split each period by this client field (format 1.2) or the engine.",
        CohortField.allCases.map { ($0.rawValue, $0) }, defaultText: "the whole fleet")

    /// `report cohorts --by`: required, except with --partials (a partials
    /// file holds every field).
    static let partialsBy = Option<CohortField>.choice(
        "--by", value: "FIELD",
        help: "Group participants by this client field (format 1.2) or the meeting's engine (required, except with --partials).",
        CohortField.allCases.map { ($0.rawValue, $0) })

    static let partials = Option<Bool>.flag(
        "--partials", help: "Print the store's additive figures per meeting (JSON), to be merged with --merge.")
    static let merge = Option<Bool>.flag(
        "--merge", help: "Report on the partials files given as arguments (no store is read).")

    static let partialsHelp = """
        For a fleet kept in several stores (e.g. the shards of a Spark job), run --partials
        on each: it prints, per meeting and per client profile (engine and client fields),
        the sums the figures are made of, the participants' median MOS and the first-frame
        times, as JSON; one file serves every field and period. Then --merge FILE... reports
        on them exactly as one store of all the meetings would, intervals included (the
        meetings are put in the store's order before resampling). Each meeting must be in
        exactly one of the stores. See Docs/cohorts.md.
        """

    /// With --partials, writes the store's partials and returns the exit
    /// code; otherwise checks that --merge and the arguments go together
    /// and returns nil.
    static func writePartials(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32? {
        let partials: Bool = try args.get(Self.partials), merging: Bool = try args.get(Self.merge)
        if partials && merging { throw UsageError("give either --partials or --merge, not both") }
        if !merging, !args.positionals.isEmpty {
            throw UsageError("unexpected argument '\(args.positionals[0])' (files are read only with --merge)")
        }
        if merging {
            try checkMerge(args, files: args.positionals)
            return nil
        }
        guard partials else { return nil }
        for option in [replicates, seed] as [any OptionDeclaration] where args.isGiven(option) {
            throw UsageError("'\(option.spec.primary)' does not go with --partials: the intervals are made by --merge")
        }
        if args.isGiven(ReportOptions.format), try args.get(ReportOptions.format) != ReportFormat.json {
            throw UsageError("'--format' must be one of json (with --partials), got '\(try args.get(ReportOptions.format).rawValue)'")
        }
        let part = try CohortPartials(try meetings(args, context, splitting: CohortField.allCases))
        try ReportOptions.emit(part.json.rendered() + "\n", args, context)
        return ExitCode.success
    }

    /// The meetings a report is on, summed per profile: the store's, or
    /// with --merge the partials files'.
    static func summedMeetings(_ args: ParsedArguments, _ context: CommandContext, by field: CohortField?) throws -> [CohortMeetingSums] {
        guard try args.get(merge) else {
            return try meetings(args, context, splitting: field.map { [$0] } ?? []).map(CohortMeetingSums.init)
        }
        return try merged(args.positionals, context)
    }

    /// With --merge: no store options, and at least one file.
    static func checkMerge(_ args: ParsedArguments, files: [String]) throws {
        for option in [Options.db, Options.since, Options.until] as [any OptionDeclaration] where args.isGiven(option) {
            throw UsageError("'\(option.spec.primary)' does not go with --merge: the partials carry the meetings")
        }
        guard !files.isEmpty else { throw UsageError("--merge needs at least one partials file") }
    }

    /// The meetings of partials files, merged (in the store's order).
    static func merged(_ paths: [String], _ context: CommandContext) throws -> [CohortMeetingSums] {
        var parts: [CohortPartials] = []
        for path in paths {
            let data = try CommandContext.readFile(path, what: "partials file")
            parts.append(try CohortPartials.parse(data, source: path))
        }
        let total = try CohortPartials.merge(parts)
        context.stderr.write("merged \(parts.count) partials: \(total.meetings.count) meetings, \(total.participants) participants\n")
        if total.readVersion == 1 {
            // The figures are the old rule's: say so where the method
            // text cannot (it describes this version's rule).
            context.stderr.write("Warning: partials of version 1 (an older mqa): by netType, a participant whose network "
                                 + "changed counts whole on its join's network; remake them to count each network's part\n")
        } else if total.readVersion == 2 {
            context.stderr.write("Warning: partials of version 2 (an older mqa): a participant who rejoined with another "
                                 + "platform, device or version counts whole under its last one; remake them to count each "
                                 + "one's part\n")
        }
        return total.meetings
    }
}
