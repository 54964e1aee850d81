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
        split their figures by value. Under a --config other than the defaults, every
        meeting is analysed again with it (slower: all reports are decoded), and the
        time at poor/bad and the MOS are that config's. Intervals are 95 % percentile
        bootstrap intervals that resample whole meetings (participants of one meeting
        share its network and server, so they are not independent); the same store,
        --seed and --replicates give the same intervals. See Docs/cohorts.md.
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
    /// `allowingNone`: a window without meetings is an answer (partials: a
    /// shard's zeros, which add nothing when merged), not an error.
    static func meetings(_ args: ParsedArguments, _ context: CommandContext, config: TierConfig,
                         splitting: [CohortField], allowingNone: Bool = false) throws -> [CohortMeeting] {
        let window = try context.timeWindow(args)
        try EventStore.refreshStaleSummaries(path: try context.databasePath(args))
        let store = try context.openStore(args, requireMeetings: !allowingNone)
        let meetings: [CohortMeeting]
        if config.changedKeys.isEmpty {
            meetings = try store.cohortMeetings(startingIn: window, splitting: splitting) { damage in
                context.stderr.write("Warning: \(TerminalText.escaped(damage.description)); left out\n")
            }
        } else {
            // The summaries hold the default config's tiers and MOS, so
            // under another one every meeting is analysed again, as
            // `report fleet --config` does; the figures are then what
            // the summaries would hold had ingest used that config.
            // This thread reads a group of meetings while the group before
            // is analysed on the other cores (`BackgroundMap`).
            let ids = try store.meetings(startingIn: window)
            let sizes = try store.storedItemCounts()
            let progress = ProgressBar.onTerminal(context)
            // Cleared however the loop ends: an error gets a line of its own.
            defer { progress?.finish() }
            var analysed: [CohortMeeting] = []
            try BackgroundMap<Result<CohortMeeting, any Error>>.pipeline(
                ids, maxCount: ReportMeetingCommand.groupMeetings, maxItems: FleetAnalysis.groupItems, items: { sizes[$0] ?? 0 },
                read: { try ReportOptions.meetingLog(store, $0, context, progress: progress) },
                transform: { log in Result { try CohortMeeting(log: log, config: config) } },
                alone: { id in Result { try aloneMeeting(store, id, config: config, context, progress: progress) } },
                deliver: { _, result in
                    analysed.append(try result.get())
                    progress?.update(count: analysed.count, total: ids.count, noun: "meetings analysed under --config")
                })
            meetings = analysed
        }
        if meetings.isEmpty, !allowingNone, window.since != nil || window.until != nil {
            throw StoreError.noMeetingInWindow(since: window.since, until: window.until)
        }
        return meetings
    }
}

extension CohortOptions {
    /// A meeting too big to share a group, under `config`: read client by
    /// client (`EventStore.cohortMeeting`); read whole, one client of 4M
    /// reports took 264 MiB, a 2,000-viewer hour 232 MiB. A damaged chunk
    /// falls back to the lenient whole read, which leaves it out with a
    /// warning.
    static func aloneMeeting(_ store: EventStore, _ id: String, config: TierConfig, _ context: CommandContext,
                             progress: ProgressBar?) throws -> CohortMeeting {
        do {
            guard let meeting = try store.cohortMeeting(id, config: config) else { throw StoreError.noMeeting(id) }
            return meeting
        } catch StoreError.damaged {
            return try CohortMeeting(log: ReportOptions.meetingLog(store, id, context, progress: progress), config: config)
        }
    }
}

/// What a cohort report is made of: each meeting's sums per profile, and
/// the tier config their time at poor/bad and MOS were made under.
struct CohortSource {
    var meetings: [CohortMeetingSums]
    var config: TierConfig
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
        try args.requireJSON(ReportOptions.format, with: "--partials")
        let config = try context.tierConfig(args)
        var part = try CohortPartials(try meetings(args, context, config: config, splitting: CohortField.allCases,
                                                   allowingNone: true))
        part.config = config
        try ReportOptions.emit(part.json.rendered() + "\n", args, context)
        return ExitCode.success
    }

    /// The meetings a report is on, summed per profile: the store's, or
    /// with --merge the partials files'.
    static func summedMeetings(_ args: ParsedArguments, _ context: CommandContext, by field: CohortField?) throws -> CohortSource {
        guard try args.get(merge) else { return try stored(args, context, splitting: field.map { [$0] } ?? []) }
        return try merged(args.positionals, context)
    }

    /// The store's meetings summed per profile, under `--config`.
    static func stored(_ args: ParsedArguments, _ context: CommandContext, splitting: [CohortField]) throws -> CohortSource {
        let config = try context.tierConfig(args)
        return CohortSource(meetings: try meetings(args, context, config: config, splitting: splitting).map(CohortMeetingSums.init),
                            config: config)
    }

    /// With --merge: no store options, and at least one file.
    static func checkMerge(_ args: ParsedArguments, files: [String]) throws {
        for option in [Options.db, Options.since, Options.until] as [any OptionDeclaration] where args.isGiven(option) {
            throw UsageError("'\(option.spec.primary)' does not go with --merge: the partials carry the meetings")
        }
        if args.isGiven(Options.config) {
            throw UsageError("'--config' does not go with --merge: the partials carry the config they were made under")
        }
        guard !files.isEmpty else { throw UsageError("--merge needs at least one partials file") }
    }

    /// The meetings of partials files, merged (in the store's order).
    static func merged(_ paths: [String], _ context: CommandContext) throws -> CohortSource {
        var parts: [CohortPartials] = []
        for path in paths {
            let data = try CommandContext.readFile(path, what: "partials file")
            parts.append(try CohortPartials.parse(data, source: path))
        }
        let total = try CohortPartials.merge(parts, names: paths)
        // Figures of nothing would read as a fleet without trouble.
        if total.meetings.isEmpty { throw CohortPartialsError("the partials hold no meeting: nothing to report") }
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
        if !total.hasRenderCounts {
            context.stderr.write("Warning: partials without never-rendered counts (an older mqa): the never-rendered "
                                 + "share is unknown (null), and the gate cannot see video that never rendered; remake "
                                 + "them to count it\n")
        }
        return CohortSource(meetings: total.meetings, config: total.config)
    }
}
