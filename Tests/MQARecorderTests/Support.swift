#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQATestSupport
import Testing

@testable import MQARecorder
import MQABase
import MQAModel

/// A fresh folder per test (`ScratchFolder`).
final class TempDir: ScratchFolder {
    init(_ name: String = #function) { super.init(name, prefix: "mqa-recorder") }
}

/// A clock the test drives: 2026-11-29T10:00:00Z plus one millisecond per call.
final class StepClock: @unchecked Sendable {
    private let lock = NSLock()
    private var next: Int64
    init(start: Int64 = 1_795_946_400_000) { next = start }

    var clock: MeetingRecorder.Clock {
        { [self] in
            lock.lock()
            defer { lock.unlock() }
            next += 1
            return next - 1
        }
    }
}

/// One line as the pipeline's validator sees it.
struct CheckedLine {
    var text: String
    var outcome: LineOutcome
    var event: String
    var json: [String: Any]
}

/// Splits a file into lines; records an issue unless it ends with a newline
/// (a half line) and unless every line passes `LineParser` (unknown events
/// may be `.ignored`, nothing may be `.rejected`).
func checkedLines(_ bytes: [UInt8], file: String = "", allowingCutEnd: Bool = false,
                  sourceLocation: SourceLocation = #_sourceLocation) -> [CheckedLine] {
    if !allowingCutEnd, let last = bytes.last, last != 0x0A {
        Issue.record("\(file) ends inside a line", sourceLocation: sourceLocation)
    }
    var parser = LineParser(nowMs: Int64(Date().timeIntervalSince1970 * 1000))
    var out: [CheckedLine] = []
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
        let array = Array(line)
        let outcome = array.withUnsafeBufferPointer { parser.parse($0) }
        let text = String(decoding: array, as: UTF8.self)
        if case .rejected(let reason) = outcome {
            Issue.record("\(file): rejected line: \(reason)\n\(text)", sourceLocation: sourceLocation)
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(array))) as? [String: Any] ?? [:]
        out.append(CheckedLine(text: text, outcome: outcome, event: json["event"] as? String ?? "", json: json))
    }
    return out
}

/// All lines of the folder's complete files, files in name order.
func lines(in dir: TempDir, sourceLocation: SourceLocation = #_sourceLocation) -> [CheckedLine] {
    dir.names.filter { $0.hasSuffix(".ndjson") }.flatMap {
        checkedLines(dir.bytes($0), file: $0, sourceLocation: sourceLocation)
    }
}

func recorder(
    _ dir: TempDir, meeting: String = "m-42", uid: String = "alice", clock: StepClock = StepClock(),
    _ configure: (inout MeetingRecorder.Configuration) -> Void = { _ in }
) throws -> MeetingRecorder {
    var c = MeetingRecorder.Configuration()
    c.flushInterval = 0.02
    configure(&c)
    return try MeetingRecorder(directory: dir.url, meeting: meeting, uid: uid, configuration: c, clock: clock.clock)
}

/// A child process with stdout/stderr in temporary files.
final class Child {
    let pid: pid_t
    let outPath: String
    let errPath: String

    init(_ executable: String, _ args: [String]) {
        let tag = UUID().uuidString
        outPath = NSTemporaryDirectory() + "/rec-out-\(tag)"
        errPath = NSTemporaryDirectory() + "/rec-err-\(tag)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env = ProcessInfo.processInfo.environment
        env["MQA_DB"] = nil
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        precondition(rc == 0, "cannot start \(executable): \(String(cString: strerror(rc))) (run `swift build` first)")
        self.pid = pid
    }

    /// Waits for the end (SIGKILL after `timeout` s); (exit code or -signal, stdout, stderr).
    func wait(timeout: Double = 120) -> (status: Int32, stdout: String, stderr: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(2000)
        }
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        unlink(outPath)
        unlink(errPath)
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : -signal, out, err)
    }
}
