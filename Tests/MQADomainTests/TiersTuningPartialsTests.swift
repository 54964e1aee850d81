import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// `mqa tune --partials` / `--merge`: any split of the meetings, scored part
/// by part and merged, must rank exactly as one sweep over all of them.
@Suite("Tuning partials")
struct TiersTuningPartialsTests {
    static let gridText = #"{"hysteresis": [0, 0.2], "downDwell": [1, 2], "alphaUp": [0.4, 1], "mos": ["sdk", "emodel"]}"#

    func randomMeetings(_ count: Int, seed: UInt64) -> [MeetingLog] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { m in
            let uids = ["a", "b", "c", "d"].prefix(Int.random(in: 1...4, using: &rng)).map { $0 }
            return meeting(uids.map { u in randomClient(u, peers: uids.filter { $0 != u }, rng: &rng) }, id: "m-\(m)")
        }
    }

    /// The partials of one part, as `mqa tune --partials` writes them, read back.
    func partials(_ logs: [MeetingLog], configs: [TierConfig], options: TuningOptions) throws -> TuningPartials {
        let corpus = TuningCorpus(logs)
        let part = TuningPartials(grid: Self.gridText, target: options.target, leadMs: options.leadMs,
                                  meetings: logs.count, reports: corpus.reportCount, connections: corpus.connectionCount,
                                  counts: Tuning.countAll(corpus, configs: configs, options: options),
                                  meetingIDs: logs.map(\.meeting))
        let text = part.json(configs: configs).rendered()
        let back = try TuningPartials.parse(Data(text.utf8))
        #expect(back == part)
        // What `tune --partials` writes, a config at a time: the same text.
        let path = NSTemporaryDirectory() + "/mqa-partials-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try OutputSink(path: path)
        part.write(configs: configs, to: sink)
        try sink.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text + "\n")
        return back
    }

    @Test("property: merging any split of the meetings gives the single run, to the bit",
          arguments: [(UInt64(1), TuningOptions()), (UInt64(2), TuningOptions(target: .fair, leadMs: 4000)),
                      (UInt64(3), TuningOptions(target: .bad, leadMs: 20000))])
    func anySplitMergesExactly(seed: UInt64, options: TuningOptions) throws {
        let logs = randomMeetings(24, seed: seed)
        let configs = try TuningGrid.parse(Data(Self.gridText.utf8)).configs()
        let single = Tuning.sweep(TuningCorpus(logs), configs: configs, options: options)
        #expect(single.contains { $0.score.medianLeadMs != nil })
        #expect(single.contains { $0.pareto } && single.contains { !$0.pareto })
        var rng = SplitMix64(seed: seed &* 7919)
        for trial in 0..<12 {
            // 1 to 6 parts; a part may be empty; meetings land in random parts.
            let k = trial == 0 ? 1 : Int.random(in: 2...6, using: &rng)
            var parts = Array(repeating: [MeetingLog](), count: k)
            for log in logs { parts[Int.random(in: 0..<k, using: &rng)].append(log) }
            var files = try parts.map { try partials($0, configs: configs, options: options) }
            files.shuffle(using: &rng)  // the order of the parts must not matter
            let merged = try TuningPartials.merge(files)
            let results = try merged.results()
            #expect(results == single, "split into \(k) parts, trial \(trial)")
            #expect(results.json.rendered(pretty: true) == single.json.rendered(pretty: true))
            #expect(merged.reports == TuningCorpus(logs).reportCount)
            #expect(merged.meetings == logs.count)
            #expect(Set(merged.meetingIDs ?? []) == Set(logs.map(\.meeting)) && merged.meetingIDs?.count == logs.count)
        }
    }

    @Test("property: the lead histogram keeps the multiset, and its median is the nearest-rank p50")
    func histogram() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<200 {
            let a = (0..<Int.random(in: 0..<30, using: &rng)).map { _ in Int64.random(in: 0..<40, using: &rng) }
            let b = (0..<Int.random(in: 0..<30, using: &rng)).map { _ in Int64.random(in: 0..<40, using: &rng) }
            let merged = TuningCounts(leadTimes: a) + TuningCounts(leadTimes: b)
            #expect(merged == TuningCounts(leadTimes: a + b))
            #expect(merged.leadCount == a.count + b.count)
            #expect(merged.medianLeadMs == NearestRank.value((a + b).sorted(), percent: 50))
            #expect(zip(merged.leads, merged.leads.dropFirst()).allSatisfy { $0.ms < $1.ms })
        }
        #expect(TuningCounts().medianLeadMs == nil)
        #expect(TuningCounts(leadTimes: [5, 1, 9, 1]).medianLeadMs == 1)  // ⌈4/2⌉ = 2nd smallest
        #expect(TuningCounts(leadTimes: [5, 1, 9]).medianLeadMs == 5)
    }

    @Test("a score from counts equals the score from raw figures")
    func scoreFromCounts() {
        let counts = TuningCounts(alarms: 7, stalls: 9, covered: 4, useful: 3, flaps: 20, warmMs: 3_600_123,
                                  leadTimes: [300, 12000, 50])
        let s = TuningScore(counts)
        #expect(s == TuningScore(alarms: 7, stalls: 9, covered: 4, useful: 3, flaps: 20, warmMs: 3_600_123,
                                 leads: [50, 300, 12000]))
        #expect(s.medianLeadMs == 300)
        #expect(s.precision == 3.0 / 7.0 && s.recall == 4.0 / 9.0)
    }

    @Test("merging refuses parts of another grid, target or lead, and malformed files")
    func refusals() throws {
        let logs = randomMeetings(4, seed: 5)
        let configs = try TuningGrid.parse(Data(Self.gridText.utf8)).configs()
        let p = try partials(logs, configs: configs, options: TuningOptions())
        var otherGrid = p
        otherGrid.grid = #"{"hysteresis": [0, 0.3], "downDwell": [1, 2], "alphaUp": [0.4, 1], "mos": ["sdk", "emodel"]}"#
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([p, otherGrid]) }
        var otherLead = p
        otherLead.leadMs = 1
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([p, otherLead]) }
        var otherTarget = p
        otherTarget.target = .bad
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([p, otherTarget]) }
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([]) }

        let good = p.json(configs: configs).rendered()
        for bad in [
            "[]", "{}", good.replacingOccurrences(of: #""mqaTunePartials":1"#, with: #""mqaTunePartials":2"#),
            good.replacingOccurrences(of: #""gridIndex":1,"#, with: #""gridIndex":5,"#),
            good.replacingOccurrences(of: #""target":"poor""#, with: #""target":"awful""#),
            good.replacingOccurrences(of: #""alarms":"#, with: #""alarms":-1"#),
        ] {
            #expect(throws: TuningPartialsError.self) { try TuningPartials.parse(Data(bad.utf8)) }
        }
        // Lead bins out of order or with a zero count are not a histogram.
        #expect(TuningCounts(alarms: 0, stalls: 0, covered: 0, useful: 0, flaps: 0, warmMs: 0,
                             leads: [.init(ms: 5, count: 1), .init(ms: 5, count: 1)]) == nil)
        #expect(TuningCounts(alarms: 0, stalls: 0, covered: 0, useful: 0, flaps: 0, warmMs: 0,
                             leads: [.init(ms: 5, count: 0)]) == nil)
        // Counts no sweep gives: a precision of 1.03 was merged from a
        // tampered part. Useful ≤ alarms, covered ≤ stalls, at most one lead
        // per covered stall, no negative lead.
        func counts(alarms: Int = 4, stalls: Int = 3, covered: Int = 2, useful: Int = 3, leads: [Int64] = [10, 20]) -> TuningCounts? {
            TuningCounts(alarms: alarms, stalls: stalls, covered: covered, useful: useful, flaps: 0, warmMs: 1000,
                         leads: leads.map { .init(ms: $0, count: 1) })
        }
        #expect(counts() != nil)
        #expect(counts(useful: 5) == nil && counts(covered: 4) == nil && counts(leads: [1, 2, 3]) == nil && counts(leads: [-1, 2]) == nil)
        // Stalls do not depend on the config: a file whose configs differ is not one sweep.
        var moreStalls = p
        let c = p.counts[1]
        moreStalls.counts[1] = try #require(TuningCounts(alarms: c.alarms, stalls: c.stalls + 1, covered: c.covered, useful: c.useful,
                                                         flaps: c.flaps, warmMs: c.warmMs, leads: c.leads))
        #expect(throws: TuningPartialsError.self) { try TuningPartials.parse(Data(moreStalls.json(configs: configs).rendered().utf8)) }
        #expect(throws: TuningPartialsError.self) { try TuningPartials.parse(Data(good.replacingOccurrences(of: "mqa.tunePartials/1", with: "mqa.tunePartials/9").utf8)) }
        // The same part twice, reformatted or not, would count its meetings twice.
        let again = try TuningPartials.parse(Data(good.utf8))
        #expect(p.meetings > 0)
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([p, again]) }

        // Two parts that share one meeting: refused, naming it and both parts.
        let first = try partials(Array(logs.prefix(3)), configs: configs, options: TuningOptions())
        let second = try partials(Array(logs.suffix(2)), configs: configs, options: TuningOptions())
        #expect(throws: TuningPartialsError("meeting '\(logs[2].meeting)' is in 'a.json' and 'b.json': each meeting must be "
                                            + "in exactly one part, or it is counted twice")) {
            try TuningPartials.merge([first, second], names: ["a.json", "b.json"])
        }
        // A file of an mqa that listed no meetings still reads and merges
        // (only the same part twice can be told then).
        var older = second
        older.meetingIDs = nil
        let olderText = older.json(configs: configs).rendered()
        #expect(olderText.contains(#""meetingIds":null"#))
        let withoutKey = olderText.replacingOccurrences(of: #""meetingIds":null,"#, with: "")
        #expect(withoutKey != olderText && !withoutKey.contains("meetingIds"))
        let unlisted = try TuningPartials.parse(Data(withoutKey.utf8))
        #expect(unlisted.meetingIDs == nil && unlisted.counts == second.counts)
        let mixed = try TuningPartials.merge([first, unlisted])
        #expect(mixed.meetings == 5 && mixed.meetingIDs == nil)
        // The same part from an mqa that listed its meetings and one that
        // did not is still the same part twice.
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([second, unlisted]) }
        #expect(throws: TuningPartialsError.self) { try TuningPartials.merge([unlisted, second]) }
        // The list must name as many meetings as the file says, each once.
        let listed = first.json(configs: configs).rendered()
        let ids = first.meetingIDs ?? []
        for (from, to) in [(#""meetingIds":["\#(ids[0])","#, #""meetingIds":["#),
                           (#""\#(ids[1])""#, #""\#(ids[0])""#),
                           (#""\#(ids[0])""#, #""""#)] {
            let bad = listed.replacingOccurrences(of: from, with: to)
            #expect(bad != listed)
            #expect(throws: TuningPartialsError.self) { try TuningPartials.parse(Data(bad.utf8)) }
        }
    }
}

/// Scores keep a config's lead times cut to their median, so that a sweep
/// of many configs holds one bin each.
@Suite struct TuningMedianLeadTests {
    @Test("counts cut to the median give the scores and the ranking of the whole histogram")
    func medianOnlyScoresTheSame() throws {
        let logs = TiersTuningPartialsTests().randomMeetings(30, seed: 11)
        let configs = try TuningGrid.parse(Data(TiersTuningPartialsTests.gridText.utf8)).configs()
        let corpus = TuningCorpus(logs)
        let full = Tuning.countAll(corpus, configs: configs)
        let cut = Tuning.countAll(corpus, configs: configs, medianLeadOnly: true)
        #expect(full.contains { $0.leads.count > 1 })
        for (f, c) in zip(full, cut) {
            #expect(c.leads.count <= 1 && c.leadsCutToMedian)
            #expect(c.leadCount == f.leadCount && c.medianLeadMs == f.medianLeadMs)
            #expect(TuningScore(c) == TuningScore(f))
            #expect(TuningScore(f).counts.leads.count <= 1)
        }
        #expect(Tuning.rank(configs: configs, scores: cut.map(TuningScore.init)).json.rendered()
            == Tuning.rank(configs: configs, scores: full.map(TuningScore.init)).json.rendered())
    }
}
