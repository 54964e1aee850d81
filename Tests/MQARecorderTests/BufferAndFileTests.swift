#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import MQARecorder
import MQABase
import MQAModel
import MQAStore
import MQAIngest

@Suite struct ThreadTests {
    /// Four threads at once: every event lands exactly once, and each
    /// thread's events keep their order (one lock orders the appends).
    @Test func fourThreadsLoseNothingAndKeepEachThreadsOrder() throws {
        let dir = TempDir()
        let perThread = 5000
        let r = try recorder(dir) { $0.bufferCapacity = 4 * perThread }
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for i in 0..<perThread {
                if i % 100 == 99 {
                    r.userEntered("t\(t)-\(i)")
                } else {
                    r.qualityReport(loss: 0, rtt: Double(t), jitter: 0, bitrate: Double(i), mos: 4)
                }
            }
        }
        r.close()
        let stats = r.statistics
        #expect(stats.accepted == 4 * perThread)
        #expect(stats.dropped == 0)
        #expect(stats.written == 4 * perThread)
        let all = lines(in: dir)
        #expect(all.count == 4 * perThread)
        var next = [Int](repeating: 0, count: 4)
        for line in all {
            let t: Int
            let i: Int
            if line.event == "user_enter" {
                let parts = (line.json["target"] as! String).dropFirst().split(separator: "-")
                (t, i) = (Int(parts[0])!, Int(parts[1])!)
            } else {
                (t, i) = (line.json["rtt"] as! Int, line.json["bitrate"] as! Int)
            }
            #expect(i == next[t], "thread \(t): \(i) after \(next[t] - 1)")
            next[t] = i + 1
        }
        #expect(next == [perThread, perThread, perThread, perThread])
    }

    /// The lock is held for a copy only: a reader of the statistics and a
    /// closing thread racing with recorders neither deadlock nor crash.
    @Test func closeWhileOthersRecord() throws {
        let dir = TempDir()
        let r = try recorder(dir) { $0.bufferCapacity = 64 }
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            if t == 3 {
                usleep(2000)
                _ = r.statistics
                r.close()
            } else {
                for i in 0..<20_000 { r.qualityReport(loss: 0, rtt: Double(t), jitter: 0, bitrate: Double(i), mos: 4) }
            }
        }
        r.close()
        let s = r.statistics
        let all = lines(in: dir)
        #expect(all.filter { $0.event == "quality_report" }.count == s.written)
        #expect(s.accepted == s.written)
    }
}

@Suite struct FullBufferTests {
    /// With the writer held, a buffer of 8 takes 8 events and drops the
    /// rest; the log then says how many in one `recorder_dropped` line, which
    /// ingest counts as ignored (a valid envelope, an unknown event).
    @Test func dropsAreCountedAndLogged() throws {
        let dir = TempDir()
        let r = try recorder(dir) { $0.bufferCapacity = 8 }
        r.suspendWriter(true)
        for i in 0..<20 { r.qualityReport(loss: 0, rtt: 1, jitter: 1, bitrate: Double(i), mos: 4) }
        var s = r.statistics
        #expect(s.accepted == 8)
        #expect(s.dropped == 12)
        r.suspendWriter(false)
        while r.statistics.written < 8 { usleep(1000) }
        for i in 0..<3 { r.userEntered("late-\(i)") }
        r.close()
        s = r.statistics
        #expect(s.accepted == 11)
        #expect(s.dropped == 12)
        #expect(s.written == 11)
        #expect(s.dropLines == 1)
        let all = lines(in: dir)
        #expect(all.count == 12)
        #expect(all.prefix(8).map { $0.json["bitrate"] as? Int } == Array(0..<8))
        let drop = try #require(all.first { $0.event == "recorder_dropped" })
        #expect(drop.outcome == .ignored)
        #expect(drop.json["dropped"] as? Int == 12)
        #expect(drop.json["totalDropped"] as? Int == 12)
        #expect(drop.json["meeting"] as? String == "m-42")
        #expect(drop.json["uid"] as? String == "alice")
        // Reported right after the events that were in the buffer when it filled.
        #expect(all.firstIndex { $0.event == "recorder_dropped" } == 8)
    }

    /// Each round of drops gets its own line; `totalDropped` runs on.
    @Test func dropRoundsEachGetALine() throws {
        let dir = TempDir()
        let r = try recorder(dir) { $0.bufferCapacity = 4 }
        for round in 1...3 {
            r.suspendWriter(true)
            for _ in 0..<(4 + round) { r.reconnected() }
            r.suspendWriter(false)
            while r.statistics.written < 4 * round { usleep(1000) }
        }
        r.close()
        let drops = lines(in: dir).filter { $0.event == "recorder_dropped" }
        #expect(drops.map { $0.json["dropped"] as? Int } == [1, 2, 3])
        #expect(drops.map { $0.json["totalDropped"] as? Int } == [1, 3, 6])
        #expect(r.statistics.dropped == 6)
    }

    /// Recording after close is a no-op, not a crash.
    @Test func recordingAfterCloseIsIgnored() throws {
        let dir = TempDir()
        let r = try recorder(dir)
        r.reconnected()
        r.close()
        r.reconnected()
        r.close()
        #expect(r.statistics.accepted == 1)
        #expect(lines(in: dir).count == 1)
    }
}

@Suite struct FileTests {
    /// Files rotate before they pass the size, every file holds whole lines,
    /// nothing is left `.partial` after close, and the statistics list
    /// the complete files in order.
    @Test func rotationBySize() throws {
        let dir = TempDir()
        let r = try recorder(dir) { $0.maxFileBytes = 2000 }
        for i in 0..<200 { r.qualityReport(loss: 0.01, rtt: Double(i), jitter: 5, bitrate: 1200, mos: 4.2) }
        r.close()
        let names = dir.names
        #expect(names.count >= 200 * 140 / 2000)
        #expect(names.allSatisfy { $0.hasPrefix("m-42__alice__") && $0.hasSuffix(".ndjson") })
        var rtts: [Int] = []
        for (i, name) in names.enumerated() {
            let bytes = dir.bytes(name)
            #expect(bytes.count <= 2000)
            // Full up to the line that did not fit (lines are < 200 bytes).
            if i < names.count - 1 { #expect(bytes.count > 1800, "\(name): \(bytes.count) bytes") }
            rtts += checkedLines(bytes, file: name).map { $0.json["rtt"] as! Int }
        }
        #expect(rtts == Array(0..<200))
        #expect(r.statistics.files.map { URL(fileURLWithPath: $0).lastPathComponent } == names)
        // Each file is named after its first line's time.
        for name in names {
            let first = checkedLines(dir.bytes(name)).first!.json["ts"] as! Int
            #expect(name == "m-42__alice__\(first).ndjson")
        }
    }

    /// A sub-meeting move ends the old meeting's file with the move line;
    /// later events are the new meeting's, in a file of their own.
    @Test func subMeetingMoveStartsTheNewMeetingsFile() throws {
        let dir = TempDir()
        let r = try recorder(dir, meeting: "main-room")
        r.meetingJoined(engine: .sfu)
        r.subMeetingMoved(to: "breakout 1/a", reason: "assigned")
        r.meetingJoined(engine: .sfu)
        r.subMeetingMoved(to: "")  // names no meeting: ignored
        r.meetingLeft()
        r.close()
        let names = dir.names
        #expect(names.count == 2)
        let old = try #require(names.first { $0.hasPrefix("main-room__") })
        let new = try #require(names.first { $0.hasPrefix("breakout_201_2Fa__alice__") })
        #expect(checkedLines(dir.bytes(old)).map(\.event) == ["meeting_join", "sub_meeting_move"])
        let moved = checkedLines(dir.bytes(new))
        #expect(moved.map(\.event) == ["meeting_join", "meeting_leave"])
        #expect(moved.allSatisfy { $0.json["meeting"] as? String == "breakout 1/a" })
    }

    @Test(arguments: [
        ("m-42", "m-42"), ("a/b", "a_2Fb"), ("../x", "_2E._2Fx"), ("a__b", "a_5F_5Fb"), ("é", "_C3_A9"),
        ("..", "_2E."), ("x y", "x_20y"),
    ])
    func fileNamesUseSafeCharactersOnly(id: String, expected: String) {
        #expect(LogFiles.safeName(id) == expected)
    }

    /// The recorder's rule and the package's `SafeFileName.stem` (reports,
    /// simulator) stay two rules (see `LogFiles.safeName`), so they are held
    /// to what they share: a plain id keeps its text in both, and no id
    /// gives either a name that is a path, hidden, `.` or `..`. The
    /// recorder's is also one-to-one, which the stem is not (`a/b`, `a:b`).
    @Test func safeNamesAgreeWithThePackageRule() {
        let ids = [
            "m-42", "u-8f02", "Room.7", "a/b", "a:b", "a_b", "..", ".", "", ".hidden", "....", "a..b", "../../etc/passwd",
            "/tmp/x", "C:\\Windows", "é", "e\u{301}", "\r\n", "\u{0}\u{7f}", "🙂", "x y", "<b>",
            String(repeating: "x", count: 64), String(repeating: "x", count: 256), String(repeating: "é", count: 60),
        ]
        func only(_ name: String, _ extra: String) -> Bool {
            name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || extra.unicodeScalars.contains($0)
            }
        }
        func plain(_ id: String) -> Bool {
            !id.isEmpty && id.count <= SafeFileName.maxStemLength && !id.hasPrefix(".") && !id.contains("..")
                && only(id, ".-")
        }
        func harmless(_ name: String) -> Bool {
            name != "." && name != ".." && !name.hasPrefix(".") && only(name, "._-")
        }
        for id in ids {
            let recorder = LogFiles.safeName(id), package = SafeFileName.stem(id)
            if plain(id) {
                #expect(recorder == id && package == id, "\(id.debugDescription)")
            }
            #expect(id.isEmpty || harmless(recorder), "\(id.debugDescription) -> \(recorder)")
            #expect(id.isEmpty || harmless(package), "\(id.debugDescription) -> \(package)")
        }
        let short = ids.filter { $0.utf8.count * 3 <= 96 }  // below the cap, nothing is cut
        #expect(Set(short.map(LogFiles.safeName)).count == short.count)
        #expect(SafeFileName.stem("a/b") == SafeFileName.stem("a:b"))
    }

    /// Hostile ids never leave the folder.
    @Test func hostileIdsStayInTheFolder() throws {
        let dir = TempDir()
        let r = try recorder(dir, meeting: "../../etc/passwd", uid: "/tmp/x")
        r.reconnected()
        r.close()
        #expect(dir.names == ["_2E._2F.._2Fetc_2Fpasswd___2Ftmp_2Fx__1795946400000.ndjson"])
    }

    /// A write that fails after the kernel took part of the batch (a full
    /// disk): the part is cut off again so the file ends with a whole line,
    /// that file is finished, the batch's events are counted as dropped and
    /// reported, and the next batch goes to a new file.
    @Test func failedShortWriteLeavesWholeLinesAndCounts() throws {
        let dir = TempDir()
        let failing = FailingWrites()
        let r = try recorder(dir) { $0.writeOverride = failing.write }
        for i in 0..<5 { r.qualityReport(loss: 0, rtt: Double(i), jitter: 0, bitrate: 0, mos: 4) }
        while r.statistics.written < 5 { usleep(1000) }
        failing.arm()
        for i in 5..<10 { r.qualityReport(loss: 0, rtt: Double(i), jitter: 0, bitrate: 0, mos: 4) }
        while r.statistics.dropped < 5 { usleep(1000) }
        for i in 10..<15 { r.qualityReport(loss: 0, rtt: Double(i), jitter: 0, bitrate: 0, mos: 4) }
        r.close()
        let s = r.statistics
        #expect(s.written == 10)
        #expect(s.dropped == 5)
        #expect(s.lastError?.contains("write") == true)
        #expect(failing.shortWrites == 1)
        let names = dir.names
        #expect(names.count == 2)
        let all = lines(in: dir)  // checks that each file ends with a whole line
        #expect(all.compactMap { $0.json["rtt"] as? Int } == Array(0..<5) + Array(10..<15))
        let drop = try #require(all.first { $0.event == "recorder_dropped" })
        #expect(drop.json["dropped"] as? Int == 5)
    }

    @Test func zstdFilesAreWholeFrames() throws {
        guard RecorderCompression.zstdAvailable else { return }
        let dir = TempDir()
        let r = try recorder(dir) {
            $0.compression = .zstd(level: 3)
            $0.maxFileBytes = 600
        }
        for i in 0..<300 {
            r.qualityReport(loss: 0.01, rtt: Double(i), jitter: 5, bitrate: 1200, mos: 4.2)
            if i % 50 == 0 { usleep(30_000) }  // several writes, so several frames
        }
        r.close()
        let names = dir.names
        #expect(names.count > 1)
        #expect(names.allSatisfy { $0.hasSuffix(".ndjson.zst") })
        #expect(r.statistics.written == 300)
        // Read back through ingest's own streaming reader, file by file.
        var rtts: [Int] = []
        for name in names {
            var bytes: [UInt8] = []
            try LineReader(path: dir.path + "/" + name).forEachLine { line, _, _ in
                bytes += Array(line) + [0x0A]
            }
            rtts += checkedLines(bytes, file: name).map { $0.json["rtt"] as! Int }
        }
        #expect(rtts == Array(0..<300))
    }

    /// What a killed process leaves as `.partial` is cut back to whole lines
    /// and renamed by `finishAbandonedFiles`.
    @Test func abandonedPartialFilesAreFinished() throws {
        let dir = TempDir()
        let good = #"{"ts":1795946400000,"event":"reconnect","meeting":"m","uid":"u"}"# + "\n"
        _ = FileManager.default.createFile(
            atPath: dir.path + "/m__u__1.ndjson.partial", contents: Data((good + good + #"{"ts":17959"#).utf8))
        _ = FileManager.default.createFile(atPath: dir.path + "/m__u__2.ndjson.partial", contents: Data("{\"ts".utf8))
        let done = try MeetingRecorder.finishAbandonedFiles(in: dir.url)
        #expect(done.map(\.lastPathComponent) == ["m__u__1.ndjson"])
        #expect(dir.names == ["m__u__1.ndjson"])
        #expect(checkedLines(dir.bytes("m__u__1.ndjson")).count == 2)
        // First launch: no folder yet.
        #expect(try MeetingRecorder.finishAbandonedFiles(in: dir.url.appendingPathComponent("none")).isEmpty)
    }
}

/// write(2) that, once armed, takes half of the next write and then fails
/// with ENOSPC, as a filling disk does.
final class FailingWrites: @unchecked Sendable {
    private let lock = NSLock()
    private var armed = false
    private var failNext = false
    private(set) var shortWrites = 0

    func arm() {
        lock.lock()
        armed = true
        lock.unlock()
    }

    var write: WriteFunction {
        { [self] fd, bytes, count in
            lock.lock()
            defer { lock.unlock() }
            if failNext {
                failNext = false
                errno = ENOSPC
                return -1
            }
            if armed && count > 1 {
                armed = false
                failNext = true
                shortWrites += 1
                return Glibc.write(fd, bytes, count / 2)
            }
            return Glibc.write(fd, bytes, count)
        }
    }
}
