#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQATestSupport
import Testing

/// The built `mqa` binary, run as a child process: these tests check what a
/// user sees (exit codes, stdout, stderr), kill it mid-write, and measure
/// its memory, none of which an in-process call can show.
///
/// The test command is `swift build --build-tests && swift test --skip-build`,
/// so the binary sits next to the test bundle (`$MQA_BINARY` overrides).
enum MQA {
    static let binary: String = ProcessInfo.processInfo.environment["MQA_BINARY"] ?? builtProduct("mqa")

    /// What a finished run left behind.
    struct Result: CustomStringConvertible {
        var status: Int32  // exit code, or -1 when killed by a signal
        var signal: Int32  // the signal, 0 when it exited
        var stdout: String
        var stderr: String
        var maxRSSKiB: Int
        var seconds: Double

        /// The integer fields of a JSON summary on stdout (an ingest's
        /// counters), or none when stdout is no JSON object.
        var counts: [String: Int] {
            let object = (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
            return object.compactMapValues { $0 as? Int }
        }

        var description: String {
            "exit \(status) signal \(signal)\n--- stdout:\n\(stdout.prefix(2000))\n--- stderr:\n\(stderr.prefix(2000))"
        }
    }

    /// A running child; `wait` or `kill` it.
    final class Child {
        let pid: pid_t
        let outPath: String
        let errPath: String
        let started = Date()
        private(set) var result: Result?
        /// The child's own peak RSS (VmHWM), sampled while it runs. Not
        /// `ru_maxrss`: Linux carries the parent's high-water mark into a
        /// child across exec, and the test runner itself is large.
        private var peakKiB = 0

        init(pid: pid_t, outPath: String, errPath: String) {
            self.pid = pid
            self.outPath = outPath
            self.errPath = errPath
        }

        /// Reaps the child if it has ended; true when it has.
        func poll() -> Bool {
            if result != nil { return true }
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
            {
                peakKiB = max(peakKiB, kib)
            }
            var status: Int32 = 0
            var usage = rusage()
            let rc = wait4(pid, &status, WNOHANG, &usage)
            guard rc == pid else { return false }
            let signal = status & 0x7f
            let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            result = Result(
                status: signal == 0 ? (status >> 8) & 0xff : -1, signal: signal, stdout: out, stderr: err,
                maxRSSKiB: peakKiB, seconds: Date().timeIntervalSince(started))
            unlink(outPath)
            unlink(errPath)
            return true
        }

        var isRunning: Bool { !poll() }

        /// Waits for the end, killing the child after `timeout` seconds.
        @discardableResult
        func wait(timeout: Double = 120) -> Result {
            let deadline = Date().addingTimeInterval(timeout)
            while !poll() {
                if Date() > deadline {
                    Glibc.kill(pid, SIGKILL)
                    while !poll() { usleep(1000) }
                    Issue.record("mqa did not finish within \(timeout) s")
                    break
                }
                usleep(2000)
            }
            return result!
        }

        /// SIGKILL now; returns whether it was still running when killed.
        func kill() -> Bool {
            let wasRunning = !poll()
            if wasRunning { Glibc.kill(pid, SIGKILL) }
            wait()
            return wasRunning && result!.signal == SIGKILL
        }
    }

    /// Runs a bash `script` to the end, with `$MQA` naming the binary: for
    /// what a user types in a shell (pipes, FIFOs, process substitution).
    @discardableResult
    /// `mqa args...` run in `directory` (relative paths resolve there).
    static func run(in directory: String, _ args: [String], environment: [String: String] = [:], timeout: Double = 120) -> Result {
        var env = environment
        env["MQA"] = binary
        env["D"] = directory
        return start(["-c", #"cd "$D" && exec "$MQA" "$@""#, "mqa"] + args, environment: env, program: "/bin/bash").wait(timeout: timeout)
    }

    static func shell(_ script: String, environment: [String: String] = [:], timeout: Double = 120) -> Result {
        var env = environment
        env["MQA"] = binary
        return start(["-c", script], environment: env, program: "/bin/bash").wait(timeout: timeout)
    }

    /// Starts `mqa args...` with stdin from `stdin` (a file path) or
    /// /dev/null, stdout and stderr to temporary files.
    static func start(_ args: [String], stdin: String? = nil, environment: [String: String] = [:], program: String = binary) -> Child {
        let tmp = NSTemporaryDirectory()
        let tag = UUID().uuidString
        let outPath = tmp + "/mqa-out-\(tag)"
        let errPath = tmp + "/mqa-err-\(tag)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var env = ProcessInfo.processInfo.environment
        env["MQA_DB"] = nil
        for (k, v) in environment { env[k] = v }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, nil, argv, envp)
        precondition(rc == 0, "cannot start \(binary): \(String(cString: strerror(rc))) (run `swift build` first)")
        return Child(pid: pid, outPath: outPath, errPath: errPath)
    }

    /// Runs `mqa args...` to the end.
    @discardableResult
    static func run(_ args: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: Double = 120) -> Result {
        start(args, stdin: stdin, environment: environment).wait(timeout: timeout)
    }
}

/// A fresh temporary folder per test (`ScratchFolder`), with a simulated
/// log made by the binary.
final class Scratch: ScratchFolder {
    /// A deterministic simulated log of `meetings` meetings (`mqa simulate`).
    func simulated(_ name: String, meetings: Int, seed: Int) -> String {
        let r = MQA.run(["simulate", "--meetings", String(meetings), "--seed", String(seed)])
        precondition(r.status == 0, "simulate failed: \(r)")
        return write(name, r.stdout)
    }

    /// A store (its path) of a simulated log of `meetings` meetings.
    func simulatedStore(meetings: Int, seed: Int) -> String {
        let db = file("simulated-\(seed).sqlite")
        let r = MQA.run(["ingest", "--db", db, simulated("simulated-\(seed).ndjson", meetings: meetings, seed: seed)])
        precondition(r.status == 0, "ingest failed: \(r)")
        return db
    }
}

/// Ten valid lines of one small meeting, for tests that need a store.
enum Lines {
    static let t0: Int64 = 1_795_946_400_000

    static func meeting(_ id: String, uid: String = "alice", start: Int64 = t0, reports: Int = 8) -> String {
        var out = "{\"ts\":\(start),\"event\":\"meeting_join\",\"meeting\":\(quote(id)),\"uid\":\(quote(uid)),\"engine\":\"sfu\",\"title\":\"T\"}\n"
        for i in 0..<reports {
            let ts = start + 2000 * Int64(i + 1)
            out += "{\"ts\":\(ts),\"event\":\"quality_report\",\"meeting\":\(quote(id)),\"uid\":\(quote(uid)),"
            out += "\"loss\":\(Double(i % 5) / 2),\"rtt\":\(40 + i),\"jitter\":\(5 + i % 3),\"bitrate\":1800,\"mos\":4.1}\n"
        }
        out += "{\"ts\":\(start + 2000 * Int64(reports + 1)),\"event\":\"meeting_leave\",\"meeting\":\(quote(id)),\"uid\":\(quote(uid))}\n"
        return out
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
