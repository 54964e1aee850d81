import Foundation
import MQASimulator
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa simulate [--meetings N] [--seed S] [--out PATH]`
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Write deterministic synthetic event logs of realistic meetings.",
        discussion: """
            The same seed gives byte-identical logs. Meetings have 2–12 participants on
            networks that move between good, congested, lossy Wi-Fi and mobile handover
            states; cold starts, disconnects, reconnects, backgrounding gaps, video
            stalls (from the subscriber's network or a sender's frozen camera), CDN
            meetings without a quality feed, and a little disorder (reordered and
            duplicate lines, RFC 3339 times, unknown events). Docs/simulator.md lists
            the model's parameters.
            """,
        options: [meetings, seed, out],
        examples: [
            ("Write 20 meetings' logs, the same for the same seed", "mqa simulate --meetings 20 --seed 7 --out logs"),
        ])

    static let meetings = Option<Int>.integer(
        "--meetings", value: "N", help: "How many meetings.", range: 1...1_000_000, default: Simulator.defaultMeetings)
    static let seed = Option<UInt64>.integer("--seed", value: "S", help: "Random seed.", range: 0...UInt64.max, default: Simulator.defaultSeed)
    static let out = Option<String>.path(
        "-o", "--out", value: "PATH",
        help: "A folder to write one file per client per meeting into (PATH/<meeting>/<uid>.ndjson); standard output when absent or -.")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let meetings: Int = try args.get(Self.meetings)
        let seed: UInt64 = try args.get(Self.seed)
        let simulator = Simulator(seed: seed, meetings: meetings)
        let started = Date()
        let summary: SimulationSummary
        if let path = args.value(Self.out), path != "-" {
            summary = try simulator.writeFiles(to: URL(fileURLWithPath: path))
        } else {
            let out = context.stdout
            summary = try simulator.write { bytes in out.write(bytes: bytes) }
            out.flush()
        }
        let seconds = Date().timeIntervalSince(started)
        let count = summary.meetings == 1 ? "1 meeting" : "\(summary.meetings) meetings"
        context.stderr.write("simulated \(count), " + String(
            format: "%d clients: %d lines, %d quality reports, %.1f MB in %.2f s\n",
            summary.clients, summary.lines, summary.qualityReports, Double(summary.bytes) / 1e6, seconds))
        return ExitCode.success
    }
}
