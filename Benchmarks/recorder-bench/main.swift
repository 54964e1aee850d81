// recorder-bench: the cost of one MeetingRecorder call as the app's threads
// see it, and what the writer behind it keeps up with.
//
//   swift build -c release --product recorder-bench
//   .build/release/recorder-bench --out DIR --threads T --events N
//
// Records N events in total from T threads (quality reports with distinct
// timestamps and values, and every other kind now and then), closes the
// recorder and prints, last, one JSON line:
//   {"recorded":…,"dropped":…,"p50Ns":…,"p99Ns":…}
// `recorded` is the number of event lines in DIR; `mqa ingest` of DIR stores
// exactly that many. Figures for humans go to stderr.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MQARecorder

struct Options {
    var out = ""
    var threads = 1
    var events = 100_000
    var meeting = "m-bench"
    var buffer = 4096
    var maxFileBytes = 8 << 20
    var flushMs = 500
    var zstd = false
    /// Events per second per thread; 0 = as fast as the threads can.
    var rate = 0
}

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n" + """
        usage: recorder-bench --out DIR [--threads T] [--events N] [--meeting ID] [--buffer EVENTS]
                              [--max-file-bytes BYTES] [--flush-ms MS] [--zstd] [--rate EVENTS_PER_S_PER_THREAD]
        """ + "\n").utf8))
    exit(64)
}

func parse() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    func string(_ name: String) -> String {
        guard let v = args.popFirst() else { usage("\(name) needs a value") }
        return v
    }
    func int(_ name: String) -> Int {
        guard let v = args.popFirst().flatMap({ Int($0) }), v > 0 else { usage("\(name) needs a positive number") }
        return v
    }
    while let a = args.popFirst() {
        switch a {
        case "--out": o.out = string(a)
        case "--threads": o.threads = int(a)
        case "--events": o.events = int(a)
        case "--meeting": o.meeting = string(a)
        case "--buffer": o.buffer = int(a)
        case "--max-file-bytes": o.maxFileBytes = int(a)
        case "--flush-ms": o.flushMs = int(a)
        case "--zstd": o.zstd = true
        case "--rate": o.rate = int(a)
        default: usage("unknown argument \(a)")
        }
    }
    if o.out.isEmpty { usage("--out is required") }
    return o
}

/// Each recording thread's clock: distinct timestamps across all threads
/// (thread t of T gets base + i·T + t), so no event is a duplicate of
/// another, without a shared counter that the threads would contend on.
final class ThreadClock {
    var next: Int64
    let step: Int64
    init(next: Int64, step: Int64) {
        self.next = next
        self.step = step
    }
}

nonisolated(unsafe) var clockKey = pthread_key_t()
pthread_key_create(&clockKey, nil)

func monotonicNs() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Latency histogram in 1 ns buckets up to 64 µs; slower calls share the
/// last bucket (and are reported as "≥ 65535").
let bucketCount = 1 << 16

let options = parse()
let base = MeetingRecorder.systemClock() - Int64(options.events) - 60_000
let clock: MeetingRecorder.Clock = {
    if let p = pthread_getspecific(clockKey) {
        let c = Unmanaged<ThreadClock>.fromOpaque(p).takeUnretainedValue()
        defer { c.next += c.step }
        return c.next
    }
    return MeetingRecorder.systemClock()  // the writer's recorder_dropped lines
}

var configuration = MeetingRecorder.Configuration()
configuration.bufferCapacity = options.buffer
configuration.maxFileBytes = options.maxFileBytes
configuration.flushInterval = Double(options.flushMs) / 1000
if options.zstd { configuration.compression = .zstd(level: 3) }
let recorder: MeetingRecorder
do {
    recorder = try MeetingRecorder(
        directory: URL(fileURLWithPath: options.out), meeting: options.meeting, uid: "bench-client",
        configuration: configuration, clock: clock)
} catch {
    usage("cannot start the recorder: \(error)")
}

/// The strings a thread passes, built before the clock starts: the SDK
/// hands the app ready-made values, so only the recorder call is timed.
struct ThreadStrings {
    let who: [String]
    let cams: [String]
    let speakers: [[String]]
    let titles: [String]

    init(thread t: Int) {
        who = (0..<7).map { "u\(t)-\($0)" }
        cams = who.map { $0 + "-cam" }
        speakers = who.map { [$0, "u\(t)-x"] }
        titles = (0..<16).map { "Meeting title \(t)-\($0)" }
    }
}

/// The events other than quality reports, one every `otherEvery` calls, in turn.
let otherEvery = 50
func recordOther(_ n: Int, _ s: ThreadStrings) {
    let who = s.who[n % 7]
    let cam = s.cams[n % 7]
    let title = s.titles[n % 16]
    switch n % 21 {
    case 0: recorder.meetingJoined(engine: .sfu, title: title)
    case 1: recorder.meetingLeft()
    case 2: recorder.disconnected(reason: "network", error: n % 2 == 0 ? "timeout" : nil)
    case 3: recorder.reconnected()
    case 4: recorder.connectionQualityChanged(tier: n % 3 == 0 ? "excellent" : n % 3 == 1 ? "good" : "poor")
    case 5: recorder.activeSpeakersChanged(s.speakers[n % 7])
    case 6: recorder.streamSubscribed(publisher: who, track: cam, kind: n % 2 == 0 ? .camera : .screen)
    case 7: recorder.streamUnsubscribed(publisher: who, track: cam)
    case 8: recorder.receiveStreamStatus(publisher: who, track: cam, timedOut: n % 2 == 0)
    case 9: recorder.userEntered(who)
    case 10: recorder.userLeft(who)
    case 11: recorder.memberMediaState(target: who, media: .camera, on: n % 2 == 0, byAdmin: true, opUid: "host")
    case 12: recorder.roomTitleChanged(to: title, from: s.titles[(n + 1) % 16])
    case 13: recorder.roomShareStarted(publisher: who)
    case 14: recorder.roomShareStopped(publisher: who)
    case 15: recorder.audioRouteChanged(route: "bluetooth", reason: "newDeviceAvailable")
    case 16: recorder.audioInterruption(n % 2 == 0 ? .began : .ended)
    case 17: recorder.deviceChanged(kind: .mic, change: .added, device: title)
    case 18: recorder.userHandup(.request)
    case 19: recorder.shareBroadcastStarted()
    default: recorder.shareBroadcastStopped()
    }
}

let threadCount = options.threads
// One histogram per thread, each written only by its own thread.
nonisolated(unsafe) let histograms = (0..<threadCount).map { _ in UnsafeMutablePointer<UInt32>.allocate(capacity: bucketCount) }
for h in histograms { h.initialize(repeating: 0, count: bucketCount) }
let start = NSCondition()
nonisolated(unsafe) var go = false
let group = DispatchGroup()

for t in 0..<threadCount {
    let count = options.events / threadCount + (t < options.events % threadCount ? 1 : 0)
    group.enter()
    let thread = Thread {
        let c = ThreadClock(next: base + Int64(t), step: Int64(threadCount))
        pthread_setspecific(clockKey, Unmanaged.passRetained(c).toOpaque())
        let h = histograms[t]
        let strings = ThreadStrings(thread: t)
        start.lock()
        while !go { start.wait() }
        start.unlock()
        var others = 0
        let began = monotonicNs()
        for i in 0..<count {
            if options.rate > 0 {
                // Paced: sleep until this event's time (not timed as a call).
                let due = began + UInt64(i) * 1_000_000_000 / UInt64(options.rate)
                let now = monotonicNs()
                if due > now + 50_000 { usleep(UInt32((due - now) / 1000)) }
            }
            if t == 0 && i == count / 2 {
                // One move, mid-run: the rest of the log is another meeting's file.
                recorder.subMeetingMoved(to: options.meeting + "-2", reason: "breakout")
                continue
            }
            let t0 = monotonicNs()
            if i % otherEvery == otherEvery - 1 {
                recordOther(others, strings)
                others += 1
            } else {
                // Distinct values, in the SDK's units (loss as a fraction).
                let k = i &* 31 &+ t
                recorder.qualityReport(
                    loss: Double(k % 1000) / 10_000, rtt: Double(20 + i % 400), jitter: Double(i % 60),
                    bitrate: Double(300 + k % 3000), mos: i % 97 == 0 ? 0 : 1 + Double(k % 400) / 100)
            }
            let ns = monotonicNs() &- t0
            h[Int(min(ns, UInt64(bucketCount - 1)))] &+= 1
        }
        group.leave()
    }
    thread.start()
}

let wallStart = monotonicNs()
start.lock()
go = true
start.broadcast()
start.unlock()
group.wait()
let recordSeconds = Double(monotonicNs() - wallStart) / 1e9
recorder.close()
let totalSeconds = Double(monotonicNs() - wallStart) / 1e9
let stats = recorder.statistics

nonisolated(unsafe) var merged = [UInt64](repeating: 0, count: bucketCount)
for h in histograms {
    for i in 0..<bucketCount { merged[i] += UInt64(h[i]) }
}
/// Nearest rank: the smallest bucket holding at least q of the calls.
func percentile(_ q: Double) -> Int {
    let n = merged.reduce(0, +)
    guard n > 0 else { return 0 }
    let rank = UInt64((q * Double(n)).rounded(.up))
    var seen: UInt64 = 0
    for (ns, c) in merged.enumerated() {
        seen += c
        if seen >= rank { return ns }
    }
    return bucketCount - 1
}

let calls = merged.reduce(0, +)
FileHandle.standardError.write(
    Data(
        """
        threads \(threadCount), calls \(calls) in \(String(format: "%.3f", recordSeconds)) s \
        (\(Int(Double(calls) / recordSeconds)) calls/s), closed after \(String(format: "%.3f", totalSeconds)) s
        accepted \(stats.accepted), dropped \(stats.dropped) (\(String(format: "%.2f", 100 * Double(stats.dropped) / Double(max(calls, 1)))) %), \
        written \(stats.written), recorder_dropped lines \(stats.dropLines), files \(stats.files.count)
        p50 \(percentile(0.5)) ns, p90 \(percentile(0.9)) ns, p99 \(percentile(0.99)) ns, p99.9 \(percentile(0.999)) ns, \
        max bucket \(merged.lastIndex(where: { $0 > 0 }) ?? 0) ns\(stats.lastError.map { "\nlast error: \($0)" } ?? "")

        """.utf8))
print("{\"recorded\":\(stats.written),\"dropped\":\(stats.dropped),\"p50Ns\":\(percentile(0.5)),\"p99Ns\":\(percentile(0.99))}")
