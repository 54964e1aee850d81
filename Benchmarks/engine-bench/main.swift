// engine-bench: synthesizes ~1M quality reports over many connections and
// times a 48-config tuning sweep. Run with `swift run -c release engine-bench
// [reports]`. Prints report×config steps per second.
import Dispatch
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

let target = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let clientsPerMeeting = 5
let reportsPerClient = 500
let meetings = max(1, target / (clientsPerMeeting * reportsPerClient))
let t0: Int64 = 1_795_946_400_000

func synthesizeClient(meeting: Int, uid: String, peers: [String], rng: inout SplitMix64) -> ClientLog {
    var log = ClientLog(uid: uid)
    var ts = t0 + Int64(rng.next() % 3000)
    log.events.append(TimedEvent(ts: ts, payload: .meetingJoin(engine: "sfu", title: nil)))
    for p in peers {
        log.events.append(TimedEvent(ts: ts + 500, payload: .streamSubscribe(publisher: p, track: "\(p)-cam", kind: "camera")))
        log.events.append(TimedEvent(ts: ts + 900, payload: .receiveStreamStatus(publisher: p, track: "\(p)-cam", timedOut: false)))
    }
    var quality = 4.2
    for n in 0..<reportsPerClient {
        ts += 2000 + Int64(rng.next() % 200)
        if rng.unit() < 0.003 { ts += 15000 }  // a reporting gap
        if n > 0, rng.unit() < 0.002 {  // disconnect + reconnect
            log.events.append(TimedEvent(ts: ts, payload: .disconnect(reason: "network", error: "timeout")))
            ts += 3000
            log.events.append(TimedEvent(ts: ts, payload: .reconnect))
        }
        quality += (rng.unit() - 0.5) * 0.5 + (4.0 - quality) * 0.05
        quality = min(4.6, max(1.2, quality))
        let cold = n < 2
        let mos: Double? = cold ? (rng.unit() < 0.5 ? 0 : 4.5) : (rng.unit() < 0.05 ? nil : quality)
        let loss = max(0, (4.3 - quality) * 4 + rng.unit())
        let report = QualityReport(loss: loss, rtt: cold ? 0 : 40 + (4.5 - quality) * 120,
                                   jitter: 5 + (4.5 - quality) * 10, bitrate: 1500 * quality / 4.5, mos: mos)
        log.reports.append(ts: ts, report)
        if quality < 2.8, rng.unit() < 0.2, let p = peers.first {  // a stall under poor quality
            log.events.append(TimedEvent(ts: ts + 300, payload: .receiveStreamStatus(publisher: p, track: "\(p)-cam", timedOut: true)))
            log.events.append(TimedEvent(ts: ts + 1800, payload: .receiveStreamStatus(publisher: p, track: "\(p)-cam", timedOut: false)))
        } else if rng.unit() < 0.004, let p = peers.last {  // a stall the tier cannot see
            log.events.append(TimedEvent(ts: ts + 300, payload: .receiveStreamStatus(publisher: p, track: "\(p)-cam", timedOut: true)))
            log.events.append(TimedEvent(ts: ts + 1800, payload: .receiveStreamStatus(publisher: p, track: "\(p)-cam", timedOut: false)))
        }
    }
    log.events.append(TimedEvent(ts: ts + 1000, payload: .meetingLeave))
    log.events.sort { $0.ts < $1.ts }  // stable: equal ts keep order
    return log
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

let synthStart = now()
var logs: [MeetingLog] = []
var rng = SplitMix64(seed: 42)
for m in 0..<meetings {
    let uids = (0..<clientsPerMeeting).map { "u\($0)" }
    let clients = uids.map { u in synthesizeClient(meeting: m, uid: u, peers: uids.filter { $0 != u }, rng: &rng) }
    logs.append(MeetingLog(meeting: "m-\(m)", clients: clients))
}
let buildStart = now()
let corpus = TuningCorpus(logs)
let buildEnd = now()

var grid: [TierConfig] = []
for hysteresis in [0, 0.1, 0.2] {
    for upDwell in [1, 2] {
        for downDwell in [1, 2] {
            for thresholds in [[4.0, 3.6, 3.1, 2.6], [4.2, 3.8, 3.3, 2.8]] {
                for alphaDown in [0.6, 0.8] {
                    var c = TierConfig()
                    c.hysteresis = hysteresis; c.upDwell = upDwell; c.downDwell = downDwell
                    c.thresholds = thresholds; c.alphaDown = alphaDown
                    grid.append(c)
                }
            }
        }
    }
}

print("synthesized \(meetings) meetings, \(corpus.clientCount) clients, \(corpus.connectionCount) connections, \(corpus.reportCount) reports, \(corpus.stallCount) stalls in \(String(Int((buildStart - synthStart) * 1000))) ms; corpus built in \(Int((buildEnd - buildStart) * 1000)) ms")
_ = Tuning.sweep(corpus, configs: Array(grid.prefix(2)))  // warm up
var best = Double.infinity
for _ in 0..<3 {
    let s = now()
    let results = Tuning.sweep(corpus, configs: grid)
    let e = now()
    best = min(best, e - s)
    precondition(results.count == grid.count)
}
let steps = Double(corpus.reportCount) * Double(grid.count)
print("sweep of \(grid.count) configs: best \(Int(best * 1000)) ms, \(Int(steps / best / 1e6))M report×config steps/s")
let results = Tuning.sweep(corpus, configs: grid)
let top = results[0].score
print("best: f1 \(top.f1) recall \(top.recall) precision \(top.precision) alarms/h \(top.alarmsPerHour) (grid #\(results[0].gridIndex)); pareto: \(results.count { $0.pareto })")
