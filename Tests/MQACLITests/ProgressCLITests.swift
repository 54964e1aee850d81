#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQAStore
import Testing

/// Long work draws a progress bar when standard error is a terminal, and
/// nothing of it in a pipe or a file (a log must not fill with redraws).
@Suite struct ProgressCLITests {
    var fleet: (dir: Scratch, one: String, partials: [String]) { CohortPartialsCLITests.fleet }

    /// Runs mqa with standard error on a pseudo-terminal (stdout to a
    /// pipe); the exit code and what was drawn on the terminal.
    func onTerminal(_ args: [String]) throws -> (status: Int32, terminal: String) {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw POSIXError(.EIO) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MQA.binary)
        process.arguments = args
        // Every update drawn: a fast machine may finish in a tenth of a second.
        process.environment = ProcessInfo.processInfo.environment.merging(["MQA_PROGRESS_INTERVAL_MS": "0"]) { $1 }
        process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardOutput = FileHandle.nullDevice
        // Read while it runs: a full terminal buffer would block it.
        let drawn = LockedBytes()
        let fd = master
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }  // EIO once the child's side is closed
                drawn.append(buffer[0..<n])
            }
        }
        try process.run()
        close(slave)
        reader.start()
        process.waitUntilExit()
        while !reader.isFinished { usleep(10_000) }
        close(master)
        return (process.terminationStatus, drawn.text)
    }

    @Test(arguments: [["report", "meeting", "--all", "-f", "html", "--out", "SITE"], ["report", "fleet", "--config", "CONFIG"],
                      ["report", "cohorts", "--by", "platform", "--config", "CONFIG"]])
    func longWorkDrawsProgressOnATerminalOnly(command: [String]) throws {
        let config = fleet.dir.write("progress-config.json", #"{"coldStartMs": 6000}"#)
        let args = command.map { $0 == "CONFIG" ? config : $0 == "SITE" ? fleet.dir.file("progress-site-\(UUID())") : $0 }
            + ["--db", fleet.one]
        let (status, terminal) = try onTerminal(args)
        #expect(status == 0, "\(terminal)")
        #expect(terminal.contains("/16 meetings") && (terminal.contains("░") || terminal.contains("█")), "\(command): \(terminal)")
        let piped = MQA.run(args.map { $0.contains("progress-site-") ? fleet.dir.file("progress-site-\(UUID())") : $0 })
        #expect(piped.status == 0 && !piped.stderr.contains("█") && !piped.stderr.contains("░") && !piped.stderr.contains("\u{1B}["),
                "\(piped)")
    }
}

extension ProgressCLITests {
    /// A warning (a damaged chunk, left out) or an error while the bar is
    /// up gets a line of its own: the bar is cleared first.
    @Test func aWarningUnderTheBarHasALineOfItsOwn() throws {
        let damaged = fleet.dir.file("progress-damaged-\(UUID()).sqlite")
        try FileManager.default.copyItem(atPath: fleet.one, toPath: damaged)
        do {
            let db = try Database(path: damaged)
            try db.execute("UPDATE event_chunks SET data = x'00112233' WHERE id = (SELECT max(id) FROM event_chunks)")
            try db.execute("INSERT INTO meetings(meeting, stale) VALUES ('zz-no-events', 0)")
        }
        let config = fleet.dir.write("progress-config.json", #"{"coldStartMs": 6000}"#)
        for command in [["report", "fleet"], ["meetings", "--config", config]] {
            let (status, terminal) = try onTerminal(command + ["--db", damaged])
            #expect(terminal.contains("\r\u{1B}[KWarning: damaged"), "\(command): \(terminal)")
            #expect(!terminal.contains("meetingsWarning") && !terminal.contains("--configWarning"), "\(command): \(terminal)")
            if command[0] == "report" {
                // The empty meeting stops the fleet: its error on a clean line.
                #expect(status == 1 && terminal.contains("\r\u{1B}[KError: "), "\(terminal)")
            }
        }
    }
}

/// Bytes appended from one thread and read from another.
final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []

    func append(_ more: ArraySlice<UInt8>) { lock.withLock { bytes += more } }
    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
}
