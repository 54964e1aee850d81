import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa compare --by FIELD A B [--fail-if-worse]`
enum CompareCommand {
    static let spec = CommandSpec(
        name: "compare",
        abstract: "Compare two values of a client field (B against A), with intervals; a release gate.",
        discussion: """
            Sets the cohort figures of A and B (values of --by) side by side with the ratio
            B/A, its 95 % interval, and whether the difference is significant. Six metrics
            are compared at once, so significance is corrected for that (Holm): the chance
            that any of them is flagged when A and B do not differ stays at most 5 %.
            With --fail-if-worse the exit code is 2 when B is significantly worse than A on
            stall rate, time at poor/bad, abnormal disconnects or the share of video that
            never rendered (a release gate for CI), 0 otherwise.
            With --merge, the values are compared over partials files ('mqa report cohorts
            --partials' of stores of disjoint meetings), given after A and B: the result is
            the one store's of all those meetings.
            """ + "\n\n" + CohortOptions.methodHelp,
        arguments: [("A", "The baseline value (e.g. 5.2.0)."), ("B", "The value compared with it (e.g. 5.3.0)."),
                    ("FILE...", "With --merge: partials files written by 'report cohorts --partials'.")],
        minPositionals: 2, maxPositionals: nil,
        options: [Options.db, Options.config, CohortOptions.by.required, Options.since, Options.until, Options.tzForTypedTimes, failIfWorse, margin, ReportOptions.format,
                  Options.out, CohortOptions.seed, CohortOptions.replicates, CohortOptions.merge],
        examples: [
            ("Is SDK 5.3.0 worse than 5.2.3? Exit 2 if so (a release gate)", "mqa compare --by sdkVersion 5.2.3 5.3.0 --fail-if-worse"),
            ("The same gate, letting a regression of up to 5 % pass", "mqa compare --by sdkVersion 5.2.3 5.3.0 --fail-if-worse --margin 5"),
        ])

    static let failIfWorse = Option<Bool>.flag(
        "--fail-if-worse",
        help: "Exit 2 when B is significantly worse on a stall, tier or disconnect figure, or on never-rendered video.")
    static let margin: Option<Double> = {
        var spec = OptionSpec(names: ["--margin"], valueName: "PCT",
                              help: "With --fail-if-worse: fail only when B is also worse by more than PCT % (its ratio "
                                  + "above 1 + PCT/100; a rise from none always is).") { text in
            guard let v = CompareCommand.percent(text) else {
                throw InvalidValue(reason: "must be a percentage from 0 to 1000 (5 or 5%)")
            }
            return v
        }
        spec.defaultText = "0"
        return Option(spec: spec, read: { $0.last as! Double })
    }()

    /// `5`, `5%`, `2.5 %` as 0.05, 0.05, 0.025; nil outside 0–1000 %.
    static func percent(_ text: String) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("%") { t = String(t.dropLast()).trimmingCharacters(in: .whitespaces) }
        guard !t.isEmpty, t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let v = Double(t), v <= 1000 else { return nil }
        return v / 100
    }

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
        let source: CohortSource
        if merging {
            try CohortOptions.checkMerge(args, files: Array(args.positionals.dropFirst(2)))
            source = try CohortOptions.merged(Array(args.positionals.dropFirst(2)), context)
        } else {
            source = try CohortOptions.stored(args, context, splitting: [field])
        }
        let meetings = source.meetings
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
        var comparison = CohortComparison(meetings, by: field, a: a, b: b, options: options)
        if let m = args.value(margin) {
            guard try args.get(failIfWorse) else { throw UsageError("--margin needs --fail-if-worse: it is the gate's") }
            comparison.margin = m
        }
        var report = CompareReport(comparison)
        report.config = source.config
        try ReportOptions.emit(report, format, args, context)
        return try args.get(failIfWorse) && comparison.failsGate ? worse : ExitCode.success
    }
}
