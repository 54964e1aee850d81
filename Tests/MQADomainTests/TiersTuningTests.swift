import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

@Suite("Tuning")
struct TiersTuningTests {
    /// Alice's tier, with MOS setting it directly: excellent from 1000, bad
    /// over [5000, 6000), [20000, 25000) and [40000, 42000); alarms at 5000,
    /// 20000 and 40000. Her stalls of bob-cam start at 22000, 33000, 50000
    /// and 52000.
    func handLog() -> MeetingLog {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(500, "bob", "bob-cam")
        alice.status(800, "bob", "bob-cam", timedOut: false)
        for t in stride(from: Int64(1000), to: 60000, by: 1000) {
            let bad = t == 5000 || (20000..<25000).contains(t) || (40000..<42000).contains(t)
            alice.report(t, mos: bad ? 2.0 : 4.3)
        }
        for start: Int64 in [22000, 33000, 50000, 52000] {
            alice.status(start, "bob", "bob-cam", timedOut: true)
            alice.status(start + 1000, "bob", "bob-cam", timedOut: false)
        }
        alice.leave(60000)
        var bob = ClientBuilder("bob", defaults: .tiers)  // no stalls, no warm data: must not disturb anything
        bob.join(0)
        bob.leave(60000)
        return meeting([alice, bob])
    }

    /// tiers.md: "Alarms (and flaps) per hour = count / (warm ms /
    /// 3,600,000), computed in that order". With no warm time a count
    /// above 0 is +∞ (JSON null, ranked as the most alarms), not 0.
    @Test func ratesOverNoWarmTime() {
        let some = TuningScore(TuningCounts(alarms: 1, flaps: 1, warmMs: 0))
        #expect(some.alarmsPerHour == .infinity && some.flapsPerHour == .infinity)
        let none = TuningScore(TuningCounts(alarms: 0, flaps: 0, warmMs: 0))
        #expect(none.alarmsPerHour == 0 && none.flapsPerHour == 0)
        let hour = TuningScore(TuningCounts(alarms: 3, flaps: 1, warmMs: 1_800_000))
        #expect(hour.alarmsPerHour == 6 && hour.flapsPerHour == 2)
    }

    /// `tune` flattens each meeting as it reads it: a corpus added to a
    /// meeting at a time, reserved or not, is the corpus of them all, and
    /// the store counts the reports a reserve needs.
    @Test func aCorpusAddedMeetingByMeetingIsTheWholeOne() throws {
        var carol = ClientBuilder("carol", defaults: .tiers)
        carol.join(0)
        carol.reports(from: 2000, to: 30_000, step: 2000, mos: 3.0)
        carol.disconnect(30_000)
        carol.reconnect(31_000)
        carol.reports(from: 33_000, to: 50_000, step: 2000, mos: 2.1)
        carol.leave(50_000)
        var cdn = meeting([carol], id: "m-cdn")
        cdn.clients[0].events[0].payload = .meetingJoin(engine: "cdn", title: nil)
        let logs = [handLog(), meeting([carol], id: "m-2"), cdn]
        let whole = TuningCorpus(logs)
        var added = TuningCorpus(), reserved = TuningCorpus()
        reserved.reserve(reports: 1000)
        for log in logs {
            added.add(TuningCorpus.Part(log: log))
            reserved.add(TuningCorpus.Part(log: log))
        }
        #expect(whole.reportCount > 60 && whole.connectionCount == 6 && whole.stallCount == 4)
        #expect(added == whole && reserved == whole)
        // The whole is its meetings' corpora end to end, offsets shifted.
        let each = logs.map { TuningCorpus([$0]) }
        #expect(Array(whole.ts) == each.flatMap { Array($0.ts) })
        #expect(Array(whole.sdkMOS).map(\.bitPattern) == each.flatMap { Array($0.sdkMOS).map(\.bitPattern) })
        #expect(Array(whole.connEnd) == each.flatMap { Array($0.connEnd) })
        #expect(Array(whole.stallStarts) == each.flatMap { Array($0.stallStarts) })
        var starts = [0], conns = [0], shift = (reports: 0, conns: 0)
        for c in each {
            starts += c.reportStart.dropFirst().map { $0 + shift.reports }
            conns += c.clientConn.dropFirst().map { $0 + shift.conns }
            shift = (shift.reports + c.reportCount, shift.conns + c.connectionCount)
        }
        #expect(Array(whole.reportStart) == starts && Array(whole.clientConn) == conns)
        #expect(whole.maxClientReports == each.map(\.maxClientReports).max())
    }

    /// A corpus made for its configs keeps their MOS columns in place of
    /// the MOS inputs: every config counts the same as on a full corpus,
    /// for the SDK's MOS, the E-model and two E-model settings.
    @Test func aCorpusOfMOSColumnsCountsAsTheFullOne() {
        var carol = ClientBuilder("carol", defaults: .tiers)
        carol.join(0)
        var t: Int64 = 2000
        for k in 0..<40 {
            // An SDK MOS out of range now and then: the E-model stands in.
            carol.report(t, mos: k % 7 == 0 ? 0 : 2.0 + Double(k % 5) * 0.5, rtt: 40 + Double(k * 37 % 300),
                         loss: Double(k % 4), jitter: Double(k % 9) * 3)
            t += 2000
        }
        carol.leave(t)
        let logs = [handLog(), meeting([carol], id: "m-2")]
        var configs: [TierConfig] = []
        for source in [MOSSource.sdk, .emodel] {
            for ie in [0.0, 11] {
                for hysteresis in [0.0, 0.2] {
                    var c = TierConfig()
                    c.mos = source
                    c.emodel = EModelParams(ie: ie)
                    c.hysteresis = hysteresis
                    configs.append(c)
                }
            }
        }
        var lean = TuningCorpus(mosFor: configs)
        for log in logs { lean.add(TuningCorpus.Part(log: log)) }
        let full = TuningCorpus(logs)
        #expect(lean.mosKeys.count == 4 && lean.loss.isEmpty && lean.sdkMOS.isEmpty && !full.sdkMOS.isEmpty)
        #expect(lean.ts == full.ts && lean.rtt.isEmpty && full.rtt.count == full.ts.count)
        let counts = Tuning.countAll(full, configs: configs)
        #expect(Tuning.countAll(lean, configs: configs) == counts)
        // The configs do not all agree, so the columns were told apart.
        #expect(Set(counts.map(\.alarms)).count > 1)
    }

    /// The bootstrap of `tune --by` resamples meetings: each part's share
    /// of a corpus's counts is what that meeting counts alone, windows
    /// included, and the shares add up to the whole.
    @Test func eachMeetingsShareIsWhatItCountsAlone() {
        var carol = ClientBuilder("carol", defaults: .tiers)
        carol.join(0)
        carol.subscribe(500, "alice", "alice-cam")
        carol.status(800, "alice", "alice-cam", timedOut: false)
        carol.reports(from: 2000, to: 30_000, step: 2000, mos: 2.0)
        carol.report(30_000, mos: 4.3)
        carol.reports(from: 32_000, to: 50_000, step: 2000, mos: 1.5)
        for start: Int64 in [12_000, 40_000] {
            carol.status(start, "alice", "alice-cam", timedOut: true)
            carol.status(start + 1000, "alice", "alice-cam", timedOut: false)
        }
        carol.leave(50_000)
        let window = TuningCorpus.Window(from: 30_000, to: 60_000)
        let parts = [TuningCorpus.Part(log: handLog()), TuningCorpus.Part(log: meeting([carol], id: "m-2")),
                     TuningCorpus.Part(log: meeting([carol], id: "m-3"), windows: [[window]]),
                     TuningCorpus.Part(log: handLog(), windows: [[window], nil])]
        let whole = TuningCorpus(parts: parts)
        #expect(whole.partCount == 4 && Array(whole.partClient) == [0, 2, 3, 4, 6])
        var tight = TierConfig()
        tight.hysteresis = 0.3
        let configs = [TierConfig(), tight]
        let (totals, byPart) = Tuning.countAllByPart(whole, configs: configs)
        #expect(totals == Tuning.countAll(whole, configs: configs))
        for (i, config) in configs.enumerated() {
            let shares = byPart[i]
            let alone = parts.map { Tuning.countAll(TuningCorpus(parts: [$0]), configs: [config])[0] }
            #expect(shares == alone.map { TuningPartCounts(alarms: $0.alarms, useful: $0.useful, stalls: $0.stalls,
                                                               covered: $0.covered) })
            #expect(shares.reduce(0) { $0 + $1.alarms } == totals[i].alarms && shares.reduce(0) { $0 + $1.covered } == totals[i].covered)
            // Not all zeros, and the window took something away.
            #expect(shares[0].useful > 0 && shares[1].covered > 0 && shares[2].stalls == 1 && shares[3].stalls < shares[0].stalls)
        }
    }

    @Test func theStoreCountsAMeetingsReports() throws {
        let s = Scratch()
        var lines: [String] = []
        for k in 0..<4 {
            let ts = t0 + Int64(k) * 2000
            if k < 3 { lines.append(qr(ts)) }
            if k < 2 { lines.append(qr(ts, uid: "bob")) }
            lines.append(qr(ts, meeting: "m-2"))
        }
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", lines)])
        #expect(try ["m-1", "m-2", "m-3"].map { try store.reportCount(meeting: $0) } == [5, 4, 0])
    }

    @Test("a score computed by hand")
    func handScore() {
        let corpus = TuningCorpus([handLog()])
        #expect(corpus.stallCount == 4)
        let s = Tuning.score(corpus, config: directConfig(), options: TuningOptions(target: .poor, leadMs: 10000))
        #expect(s.alarms == 3)
        #expect(s.stalls == 4)
        // 22000 under bad; 33000: [23000, 33000] meets [20000, 25000);
        // 50000: [40000, 50000] meets [40000, 42000); 52000: [42000, 52000] misses it.
        #expect(s.covered == 3)
        // 5000: nothing in [5000, 15000]; 20000: 22000; 40000: 50000 (inclusive).
        #expect(s.useful == 2)
        #expect(s.precision == 2.0 / 3.0)
        #expect(s.recall == 0.75)
        #expect(s.f1 == 2 * (2.0 / 3.0) * 0.75 / (2.0 / 3.0 + 0.75))
        // Leads 2000 (22000−20000), 13000 (33000−20000), 10000 (50000−40000): median the 2nd smallest.
        #expect(s.medianLeadMs == 10000)
        #expect(s.warmMs == 59000)
        #expect(s.flaps == 6)
        #expect(s.alarmsPerHour == 3 / (59000.0 / 3_600_000))
        #expect(s.flapsPerHour == 6 / (59000.0 / 3_600_000))
    }

    @Test("target and lead change the score as the spec says")
    func targetAndLead() {
        let corpus = TuningCorpus([handLog()])
        // Target bad: the same drops (to bad) are alarms.
        #expect(Tuning.score(corpus, config: directConfig(), options: TuningOptions(target: .bad)).alarms == 3)
        // Lead 0: only stalls under a bad tier at t1 are covered, no alarm is useful
        // (no stall starts exactly at an alarm).
        let s = Tuning.score(corpus, config: directConfig(), options: TuningOptions(leadMs: 0))
        #expect(s.covered == 1 && s.useful == 0 && s.precision == 0 && s.medianLeadMs == 2000)
        #expect(s.f1 == 0)
    }

    @Test("no alarms and no stalls: zeros and a null median")
    func emptyCorpus() {
        let s = Tuning.score(TuningCorpus([]), config: TierConfig())
        #expect(s.alarms == 0 && s.stalls == 0 && s.f1 == 0 && s.alarmsPerHour == 0 && s.medianLeadMs == nil)
    }

    @Test("tuning and analysis run the same machine: alarms, flaps, warm time and coverage agree")
    func agreesWithAnalysis() throws {
        var rng = SplitMix64(seed: 3)
        var logs: [MeetingLog] = []
        for m in 0..<30 {
            let uids = ["a", "b", "c", "d"]
            logs.append(meeting(uids.map { u in randomClient(u, peers: uids.filter { $0 != u }, rng: &rng) }, id: "m-\(m)"))
        }
        let corpus = TuningCorpus(logs)
        let grid = try TuningGrid.parse(Data(#"{"hysteresis": [0, 0.2], "downDwell": [1, 2], "mos": ["sdk", "emodel"]}"#.utf8))
        let options = TuningOptions(target: .fair, leadMs: 8000)
        let scores = Tuning.scoreAll(corpus, configs: grid.configs(), options: options)
        for (config, score) in zip(grid.configs(), scores) {
            var alarms = 0, flaps = 0, covered = 0, stalls = 0
            var warm: Int64 = 0
            for log in logs {
                let a = MeetingAnalysis.analyze(log, config: config)
                for c in a.connections {
                    alarms += c.changes.count { $0.from.isKnown && $0.to.isKnown && $0.from > options.target && $0.to <= options.target }
                    flaps += c.flaps
                    warm += c.tierMs.known
                }
                for s in a.subscriptions {
                    for stall in s.stalls {
                        stalls += 1
                        if a.timelines[s.subscriber]!.isAtOrBelow(options.target, anywhereIn: stall.start - options.leadMs, stall.start) {
                            covered += 1
                        }
                    }
                }
            }
            #expect(score.alarms == alarms)
            #expect(score.flaps == flaps)
            #expect(score.warmMs == warm)
            #expect(score.stalls == stalls)
            #expect(score.covered == covered)
            #expect(score == Tuning.score(corpus, config: config, options: options))
        }
        #expect(corpus.stallCount > 10)
        // Reports without a measured RTT were left out, and counted.
        #expect(corpus.heldReportCount < corpus.reportCount && corpus.heldReportCount > corpus.reportCount / 2)
    }

    func result(_ index: Int, f1: Double, recall: Double, perHour: Double) -> TuningResult {
        var score = TuningScore(alarms: 0, stalls: 0, covered: 0, useful: 0, flaps: 0, warmMs: 0, leads: [])
        score.f1 = f1
        score.recall = recall
        score.alarmsPerHour = perHour
        return TuningResult(config: TierConfig(), score: score, gridIndex: index, pareto: false)
    }

    func counted(_ index: Int, alarms: Int, useful: Int, stalls: Int, covered: Int, warmMs: Int64) -> TuningResult {
        let score = TuningScore(alarms: alarms, stalls: stalls, covered: covered, useful: useful, flaps: 0, warmMs: warmMs, leads: [])
        return TuningResult(config: TierConfig(), score: score, gridIndex: index, pareto: false)
    }

    @Test("ranking: F1, then recall, then fewer alarms per hour, then grid order")
    func ranking() {
        let hour: Int64 = 3_600_000
        var results = [
            counted(0, alarms: 2, useful: 1, stalls: 2, covered: 1, warmMs: hour),          // F1 0.5, recall 0.5, 2/h
            counted(1, alarms: 4, useful: 3, stalls: 2, covered: 1, warmMs: 1_600_000),     // F1 0.6
            counted(2, alarms: 18, useful: 7, stalls: 10, covered: 7, warmMs: 6 * hour),    // F1 0.5, recall 0.7
            counted(3, alarms: 2, useful: 1, stalls: 2, covered: 1, warmMs: 2 * hour),      // F1 0.5, recall 0.5, 1/h
            counted(4, alarms: 2, useful: 1, stalls: 2, covered: 1, warmMs: 2 * hour),
        ]
        results.sort(by: Tuning.ranksBefore)
        #expect(results.map(\.gridIndex) == [1, 2, 3, 4, 0])
    }

    /// Equal F1s whose doubles differ by an ulp (4/11 both: p = 1/4, r =
    /// 2/3 against p = 2/9, r = 1, as an audit's grid gave) tie exactly,
    /// and the higher recall goes first.
    @Test func equalF1sTieExactly() {
        let a = counted(0, alarms: 4, useful: 1, stalls: 3, covered: 2, warmMs: 3_600_000)
        let b = counted(1, alarms: 9, useful: 2, stalls: 3, covered: 3, warmMs: 3_600_000)
        #expect(a.score.f1 != b.score.f1, "the doubles differ")
        #expect(a.score.exactF1.numerator * b.score.exactF1.denominator == b.score.exactF1.numerator * a.score.exactF1.denominator)
        #expect(Tuning.ranksBefore(b, a) && !Tuning.ranksBefore(a, b))
    }

    @Test("Pareto front of recall vs alarms per hour")
    func pareto() {
        var results = [
            result(0, f1: 0, recall: 0.5, perHour: 2),  // dominated by 3
            result(1, f1: 0, recall: 0.9, perHour: 9),  // front: best recall
            result(2, f1: 0, recall: 0.2, perHour: 0),  // front: fewest alarms
            result(3, f1: 0, recall: 0.6, perHour: 2),  // front
            result(4, f1: 0, recall: 0.6, perHour: 2),  // equal to 3: both on the front
            result(5, f1: 0, recall: 0.2, perHour: 1),  // dominated by 2
        ]
        Tuning.markPareto(&results)
        #expect(results.map(\.pareto) == [false, true, true, true, true, false])
    }

    @Test("sweep returns every config ranked, with JSON in the spec's shape")
    func sweepJSON() throws {
        let corpus = TuningCorpus([handLog()])
        let configs = try TuningGrid.parse(Data(#"{"alphaDown": [1, 0.5], "hysteresis": [0]}"#.utf8)).configs()
        let results = Tuning.sweep(corpus, configs: configs)
        #expect(results.count == 2)
        #expect(zip(results, results.dropFirst()).allSatisfy { !Tuning.ranksBefore($1, $0) })
        let text = results.json.rendered()
        for key in ["\"config\":{", "\"alarms\":", "\"stalls\":4", "\"covered\":", "\"useful\":", "\"precision\":",
                    "\"recall\":", "\"f1\":", "\"alarmsPerHour\":", "\"flapsPerHour\":", "\"medianLeadMs\":", "\"pareto\":"] {
            #expect(text.contains(key))
        }
    }
}
