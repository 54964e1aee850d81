import Foundation
import MQABase
import MQAModel
import MQAAnalysis

/// Counts of what a simulation wrote. Duplicated lines count as lines.
public struct SimulationSummary: Sendable, Equatable {
    public var meetings = 0
    /// Client logs (one file per client per meeting).
    public var clients = 0
    public var lines = 0
    public var qualityReports = 0
    public var bytes = 0

    public init() {}
}

/// One meeting as generated, with the simulator's ground truth (for tests
/// and for scoring the pipeline).
public struct SimulatedMeeting: Sendable {
    public let id: String
    public let engine: Engine
    /// Each client's log, in participant order (the host first).
    public let files: [(uid: String, contents: [UInt8])]
    public let truth: MeetingTruth
}

public enum SimulationError: Error, CustomStringConvertible {
    case invalidParameters([String])
    case cannotWrite(String)

    public var description: String {
        switch self {
        case .invalidParameters(let problems): "invalid simulation parameters: " + problems.joined(separator: "; ")
        case .cannotWrite(let path): "cannot write \(path)"
        }
    }
}

/// Deterministic synthetic event logs (Docs/event-log.md): the same
/// seed, meeting count and parameters give byte-identical output. Meetings
/// are generated one at a time, so memory stays bounded at any size.
public struct Simulator: Sendable {
    public static let defaultSeed: UInt64 = 1
    /// Enough for a demo: a few dozen meetings, ~100k quality reports.
    public static let defaultMeetings = 24

    public let seed: UInt64
    public let meetings: Int
    public let parameters: SimulationParameters

    public init(seed: UInt64 = Simulator.defaultSeed, meetings: Int = Simulator.defaultMeetings,
                parameters: SimulationParameters = .default) {
        self.seed = seed
        self.meetings = max(0, meetings)
        self.parameters = parameters
    }

    /// The id of meeting `index` (0-based).
    public func meetingID(_ index: Int) -> String {
        MeetingPlan.meetingID(seed: seed, index: index)
    }

    /// One file per client per meeting: `directory/<meeting>/<uid>.ndjson`.
    /// Directories are created as needed; existing files are overwritten.
    /// Names are `SafeFileName.stem` of the ids: the simulator makes its ids
    /// (`m-` and 16 hex digits, `u-` and 4), already safe and distinct, so
    /// they stay as they are, readable and without the hash.
    public func writeFiles(to directory: URL) throws -> SimulationSummary {
        let fm = FileManager.default
        return try generate { m, buffer in
            let dir = directory.appendingPathComponent(SafeFileName.stem(m.plan.id), isDirectory: true)
            do {
                try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            } catch {
                throw SimulationError.cannotWrite(dir.path + ": " + OutputError.reason(error))
            }
            for (i, range) in m.ranges.enumerated() {
                let name = SafeFileName.stem(m.plan.participants[i].uid) + ".ndjson"
                let url = dir.appendingPathComponent(name, isDirectory: false)
                // Whole or not at all, as every output of mqa: a log cut by a
                // full disk or a kill would ingest as a shorter call.
                do {
                    let file = try AtomicFile(path: url.path)
                    try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[range])) }
                    try file.commit()
                } catch let error as OutputError {
                    throw SimulationError.cannotWrite(url.path + ": " + error.reason)
                }
            }
        }
    }

    /// A single stream: meetings one after another, each client's lines
    /// together. `sink` is called once per meeting with its bytes.
    public func write(to sink: (UnsafeRawBufferPointer) throws -> Void) throws -> SimulationSummary {
        try generate { _, buffer in try buffer.withUnsafeBytes { try sink($0) } }
    }

    /// Generates the meetings one at a time into one reused buffer, hands
    /// each to `emit` with its bytes, and sums them up.
    private func generate(_ emit: (GeneratedMeeting, [UInt8]) throws -> Void) throws -> SimulationSummary {
        try validate()
        var summary = SimulationSummary()
        var writer = LineWriter(capacity: 1 << 22)
        var scratch: [LogEvent] = []
        for index in 0..<meetings {
            writer.reset()
            let m = MeetingGenerator.generate(seed: seed, index: index, parameters: parameters,
                                              collect: false, writer: &writer, scratch: &scratch)
            try emit(m, writer.buffer)
            add(m, bytes: writer.buffer.count, to: &summary)
        }
        return summary
    }

    /// Meeting `index` with each client's log and the ground truth.
    public func meeting(_ index: Int) -> SimulatedMeeting {
        var writer = LineWriter()
        var scratch: [LogEvent] = []
        let m = MeetingGenerator.generate(seed: seed, index: index, parameters: parameters,
                                          collect: true, writer: &writer, scratch: &scratch)
        let files = m.ranges.enumerated().map { i, r in
            (uid: m.plan.participants[i].uid, contents: Array(writer.buffer[r]))
        }
        return SimulatedMeeting(id: m.plan.id, engine: m.plan.engine, files: files, truth: m.truth!)
    }

    private func validate() throws {
        let problems = parameters.problems()
        if !problems.isEmpty { throw SimulationError.invalidParameters(problems) }
    }

    private func add(_ m: GeneratedMeeting, bytes: Int, to s: inout SimulationSummary) {
        s.meetings += 1
        s.clients += m.ranges.count
        s.lines += m.lines
        s.qualityReports += m.qualityReports
        s.bytes += bytes
    }
}
