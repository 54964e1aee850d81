import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// One row per situation of a statement of the tier state machine
/// (`spec/tiers.md`, "Tier state machine"). Reports are given as MOS values
/// at `ts` 1000, 2000, … (or at `at` when set) in one connection that opens
/// at 0 and closes 1000 ms after the last report. The config starts from
/// `directConfig()` (no smoothing, no dwell, no hysteresis, no cold start)
/// and changes only the keys of the row, so every expected change can be
/// worked out by hand from the pseudocode.
///
/// Step numbers follow the body of the spec's `for each warm report` loop:
///   1. the reporting gap; 2. the first warm report; 3. the smoothing;
///   4. a worse tier; 5. a better tier; 6. the same tier.
struct MachineCase: Sendable, CustomTestStringConvertible {
    var label: String
    var mos: [Double]
    var at: [Int64]? = nil
    var alphaDown = 1.0, alphaUp = 1.0
    var downDwell = 1, upDwell = 1
    var hysteresis = 0.0
    var gapMs: Int64 = 10000
    var expected: [TierChange]

    var testDescription: String { label }

    var config: TierConfig {
        directConfig {
            $0.alphaDown = alphaDown; $0.alphaUp = alphaUp
            $0.downDwell = downDwell; $0.upDwell = upDwell
            $0.hysteresis = hysteresis; $0.gapMs = gapMs
        }
    }

    /// The changes the analysis emits for the row's reports.
    func run() -> [TierChange] {
        let times = at ?? mos.indices.map { Int64(1000 * ($0 + 1)) }
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        for (t, m) in zip(times, mos) { b.report(t, mos: m) }
        b.leave(times.last! + 1000)
        return MeetingAnalysis.analyze(meeting([b]), config: config).connections.flatMap(\.changes)
    }
}

func ch(_ ts: Int64, _ from: Tier, _ to: Tier) -> TierChange { TierChange(ts: ts, from: from, to: to) }

@Suite("Spec: tier state machine")
struct SpecTierMachineTests {
    @Test("tierOf: x >= t0 excellent, >= t1 good, >= t2 fair, >= t3 poor, else bad (edges inclusive)", arguments: [
        (5.0, Tier.excellent), (4.0, .excellent), (3.9999, .good), (3.6, .good), (3.5999, .fair),
        (3.1, .fair), (3.0999, .poor), (2.6, .poor), (2.5999, .bad), (1.0, .bad),
    ])
    func tierOf(x: Double, tier: Tier) {
        #expect(TierParams(TierConfig()).tierOf(x) == tier)
    }

    @Test("rank: bad 0, poor 1, fair 2, good 3, excellent 4; unknown has none")
    func rank() {
        #expect([Tier.bad, .poor, .fair, .good, .excellent, .unknown].map(\.rank) == [0, 1, 2, 3, 4, nil])
    }

    @Test("tier machine step 1: a gap longer than gapMs emits T -> unknown at lastTs + gapMs and resets s, up, down", arguments: [
        MachineCase(label: "a silence of gapMs + 1 is a gap", mos: [4.3, 4.3, 4.3], at: [1000, 2000, 12001],
                    expected: [ch(1000, .unknown, .excellent), ch(12000, .excellent, .unknown), ch(12001, .unknown, .excellent)]),
        MachineCase(label: "a silence of exactly gapMs is no gap", mos: [4.3, 4.3], at: [1000, 11000],
                    expected: [ch(1000, .unknown, .excellent)]),
        MachineCase(label: "the gap is the config's gapMs", mos: [4.3, 2.0], at: [1000, 4500], gapMs: 3000,
                    expected: [ch(1000, .unknown, .excellent), ch(4000, .excellent, .unknown), ch(4500, .unknown, .bad)]),
        MachineCase(label: "a gap resets s: the next report sets it directly", mos: [4.3, 2.0], at: [1000, 20000],
                    alphaDown: 0.5,
                    expected: [ch(1000, .unknown, .excellent), ch(11000, .excellent, .unknown), ch(20000, .unknown, .bad)]),
        MachineCase(label: "a gap resets down", mos: [4.3, 3.0, 4.3, 3.0], at: [1000, 2000, 15000, 16000], downDwell: 2,
                    expected: [ch(1000, .unknown, .excellent), ch(12000, .excellent, .unknown), ch(15000, .unknown, .excellent)]),
        MachineCase(label: "a gap resets up", mos: [3.5, 3.7, 3.5, 3.7], at: [1000, 2000, 15000, 16000], upDwell: 2,
                    expected: [ch(1000, .unknown, .fair), ch(12000, .fair, .unknown), ch(15000, .unknown, .fair)]),
    ])
    func step1Gap(_ c: MachineCase) {
        #expect(c.run() == c.expected)
    }

    @Test("tier machine step 2: the first warm report sets s = m and emits unknown -> tierOf(m) at once", arguments: [
        MachineCase(label: "bad, despite smoothing and dwell", mos: [2.0], alphaDown: 0.5, alphaUp: 0.5, downDwell: 3, upDwell: 3,
                    expected: [ch(1000, .unknown, .bad)]),
        MachineCase(label: "excellent, despite hysteresis", mos: [4.05], upDwell: 3, hysteresis: 0.5,
                    expected: [ch(1000, .unknown, .excellent)]),
    ])
    func step2FirstReport(_ c: MachineCase) {
        #expect(c.run() == c.expected)
    }

    @Test("tier machine step 3: a = m < s ? alphaDown : alphaUp; s = a*m + (1 - a)*s", arguments: [
        MachineCase(label: "m < s uses alphaDown", mos: [4.3, 3.0], alphaDown: 1, alphaUp: 0.5,
                    expected: [ch(1000, .unknown, .excellent), ch(2000, .excellent, .poor)]),
        MachineCase(label: "m > s uses alphaUp", mos: [2.0, 4.3], alphaDown: 0.5, alphaUp: 1,
                    expected: [ch(1000, .unknown, .bad), ch(2000, .bad, .excellent)]),
        // s = 0.8·3.0 + 0.2·4.3 = 3.26 (fair); s = 0.4·4.5 + 0.6·3.26 = 3.756 (good).
        MachineCase(label: "the weights of the defaults, by hand", mos: [4.3, 3.0, 4.5], alphaDown: 0.8, alphaUp: 0.4,
                    expected: [ch(1000, .unknown, .excellent), ch(2000, .excellent, .fair), ch(3000, .fair, .good)]),
    ])
    func step3Smoothing(_ c: MachineCase) {
        #expect(c.run() == c.expected)
    }

    @Test("tier machine step 4: a worse tier counts down (and zeroes up); at downDwell it drops to c and zeroes down", arguments: [
        MachineCase(label: "downDwell 1 drops on the first worse report", mos: [4.3, 3.0],
                    expected: [ch(1000, .unknown, .excellent), ch(2000, .excellent, .poor)]),
        MachineCase(label: "downDwell 2 drops on the second", mos: [4.3, 3.0, 3.0], downDwell: 2,
                    expected: [ch(1000, .unknown, .excellent), ch(3000, .excellent, .poor)]),
        MachineCase(label: "the drop goes to c, the smoothed tier", mos: [4.3, 2.0], alphaDown: 0.5,
                    expected: [ch(1000, .unknown, .excellent), ch(2000, .excellent, .fair)]),
        MachineCase(label: "a drop zeroes down", mos: [4.3, 3.0, 3.0, 2.0], downDwell: 2,
                    expected: [ch(1000, .unknown, .excellent), ch(3000, .excellent, .poor)]),
        MachineCase(label: "a worse report zeroes up", mos: [3.5, 3.7, 2.8, 3.7], downDwell: 2, upDwell: 2,
                    expected: [ch(1000, .unknown, .fair)]),
    ])
    func step4Worse(_ c: MachineCase) {
        #expect(c.run() == c.expected)
    }

    @Test("tier machine step 5: a better tier zeroes down; up counts while tierOf(s - hysteresis) is better; at upDwell it rises to that tier", arguments: [
        MachineCase(label: "a better report zeroes down", mos: [3.7, 3.2, 4.1, 3.2], downDwell: 2, upDwell: 2,
                    expected: [ch(1000, .unknown, .good)]),
        MachineCase(label: "the rise goes to cu = tierOf(s - hysteresis), not c", mos: [3.5, 4.05], hysteresis: 0.1,
                    expected: [ch(1000, .unknown, .fair), ch(2000, .fair, .good)]),
        MachineCase(label: "a rise inside the hysteresis band is blocked", mos: [3.5, 3.65, 3.75], hysteresis: 0.1,
                    expected: [ch(1000, .unknown, .fair), ch(3000, .fair, .good)]),
        MachineCase(label: "a blocked rise zeroes up", mos: [3.5, 3.75, 3.65, 3.75], upDwell: 2, hysteresis: 0.1,
                    expected: [ch(1000, .unknown, .fair)]),
        MachineCase(label: "upDwell 2 rises on the second better report", mos: [2.0, 2.7, 2.7], upDwell: 2,
                    expected: [ch(1000, .unknown, .bad), ch(3000, .bad, .poor)]),
        MachineCase(label: "a rise zeroes up", mos: [2.0, 2.7, 2.7, 3.2], upDwell: 2,
                    expected: [ch(1000, .unknown, .bad), ch(3000, .bad, .poor)]),
    ])
    func step5Better(_ c: MachineCase) {
        #expect(c.run() == c.expected)
    }

    @Test("tier machine step 6: a report in the current tier resets both counters", arguments: [
        MachineCase(label: "it zeroes up", mos: [3.5, 3.7, 3.5, 3.7], upDwell: 2,
                    expected: [ch(1000, .unknown, .fair)]),
        MachineCase(label: "it zeroes down", mos: [4.3, 3.0, 4.3, 3.0], downDwell: 2,
                    expected: [ch(1000, .unknown, .excellent)]),
    ])
    func step6SameTier(_ c: MachineCase) {
        #expect(c.run() == c.expected)
    }

    @Test("time in tier: T holds over [ts_i, min(next warm ts, ts_i + gapMs, connection end)); the rest is unknown; flaps are changes between known tiers")
    func timeInTier() {
        var b = ClientBuilder("a", defaults: .tiers)
        b.join(0)
        b.report(1000, mos: 4.3)
        b.report(3000, mos: 2.0)   // holds to min(25000, 13000, 27000) = 13000
        b.report(25000, mos: 4.3)  // holds to min(35000, 27000) = 27000
        b.leave(27000)
        let c = MeetingAnalysis.analyze(meeting([b]), config: directConfig()).connections[0]
        #expect(c.changes == [ch(1000, .unknown, .excellent), ch(3000, .excellent, .bad),
                              ch(13000, .bad, .unknown), ch(25000, .unknown, .excellent)])
        #expect(c.tierMs[.excellent] == 2000 + 2000)
        #expect(c.tierMs[.bad] == 10000)
        #expect(c.tierMs[.unknown] == 1000 + 12000)
        #expect(c.tierMs.total == 27000)
        #expect(c.flaps == 1)
    }

    @Test("defaults: the config keys of the spec's JSON", arguments: [0])
    func defaults(_: Int) {
        let c = TierConfig()
        #expect(c.thresholds == [4.0, 3.6, 3.1, 2.6])
        #expect(c.hysteresis == 0.1)
        #expect(c.alphaDown == 0.8 && c.alphaUp == 0.4)
        #expect(c.downDwell == 1 && c.upDwell == 2)
        #expect(c.coldStartMs == 4000 && c.gapMs == 10000)
        #expect(c.mos == .sdk)
        #expect(c.emodel == EModelParams(ie: 0, bpl: 25.1))
    }
}
