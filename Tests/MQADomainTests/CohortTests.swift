import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
@testable import MQASimulator

/// A simulated fleet in a store, read once by the cohort tests: 30
/// meetings of seed 3, with the simulator's planted differences (SDK
/// 5.3.0 decoder stalls, more loss on cellular).
enum CohortFleet {
    static let meetings = 30
    nonisolated(unsafe) static let fixture: (store: EventStore, dir: Scratch, cohorts: [CohortMeeting]) = {
        let s = Scratch()
        let path = s.dir + "/fleet.ndjson"
        var bytes: [UInt8] = []
        _ = try! Simulator(seed: 3, meetings: meetings).write { bytes.append(contentsOf: $0) }
        precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
        let store = try! EventStore(path: s.db)
        _ = try! Ingester(store: store).ingest(paths: [path])
        _ = try! store.refreshSummaries()
        return (store, s, try! store.cohortMeetings())
    }()
    static var cohorts: [CohortMeeting] { fixture.cohorts }
}

@Suite struct CohortStatisticsTests {
    /// Synthetic meetings: `n` meetings of 6 participants, each meeting
    /// with its own network (a stall rate drawn per meeting: participants
    /// of one meeting are alike), participants labelled by `label`, and
    /// those labelled "B" stalling `factor` times as much.
    static func synthetic(meetings n: Int, seed: UInt64, factor: Double = 1,
                          label: (Int, Int, inout SplitMix64) -> String) -> [CohortMeeting] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { m in
            let base = 0.005 + 0.04 * rng.unit() * rng.unit()
            let people = (0..<6).map { i -> CohortParticipant in
                let v = label(m, i, &rng)
                var info = ParticipantContext.ClientInfo()
                info.sdkVersion = v
                let watched = Int64(600_000 + rng.below(1_800_000))
                let rate = base * (v == "B" ? factor : 1) * (0.5 + rng.unit())
                let measured = watched
                return CohortParticipant(
                    uid: "u\(i)", engine: "sfu", client: info, watchedMs: watched, stalledMs: Int64(Double(watched) * rate),
                    lowTierMs: Int64(Double(measured) * base * 2 * (0.5 + rng.unit())), measuredMs: measured,
                    mosP50: 4.4 - 10 * base + 0.1 * rng.unit(), abnormalDisconnects: rng.chance(0.1) ? 1 : 0,
                    firstFrameMs: [Int64(500 + rng.below(2000))])
            }
            return CohortMeeting(meeting: "m\(m)", start: Int64(m) * 3_600_000, participants: people)
        }
    }

    @Test func aPlantedDifferenceIsFound() throws {
        let meetings = Self.synthetic(meetings: 60, seed: 1, factor: 2) { _, i, _ in i % 2 == 0 ? "A" : "B" }
        let c = CohortComparison(meetings, by: .sdkVersion, a: "A", b: "B")
        let stall = c.metrics[0]
        #expect(stall.metric == .stallRate)
        let ci = try #require(stall.ratioCI)
        #expect(ci.lower > 1 && ci.contains(2), "\(ci)")
        #expect(stall.significant && stall.worse)
        #expect(c.failsGate)
        #expect(c.verdict.hasPrefix("B stalls 2"), "\(c.verdict)")
        #expect(c.verdict.contains("(95 % CI "))
    }

    /// Twenty meetings of two A and two B participants, alike but for the
    /// abnormal disconnects `drops(meeting, participant)` gives (0–1 A,
    /// 2–3 B).
    static func twoCohorts(drops: (Int, Int) -> Int) -> [CohortMeeting] {
        (0..<20).map { m in
            let people = (0..<4).map { i -> CohortParticipant in
                var info = ParticipantContext.ClientInfo()
                info.sdkVersion = i < 2 ? "A" : "B"
                return CohortParticipant(
                    uid: "u\(i)", engine: "sfu", client: info, watchedMs: 600_000, stalledMs: 6_000,
                    lowTierMs: 0, measuredMs: 600_000, mosP50: 4.3, abnormalDisconnects: drops(m, i), firstFrameMs: [800])
            }
            return CohortMeeting(meeting: "m\(m)", start: Int64(m) * 3_600_000, participants: people)
        }
    }

    /// A regression from none at all has no ratio (B/0), but must still
    /// gate: B drops abnormally in every meeting, A never. One drop of B in
    /// one meeting of twenty is no claim.
    @Test func aRegressionFromZeroGates() {
        func fleet(_ bDrops: @escaping (Int) -> Int) -> [CohortMeeting] { Self.twoCohorts { m, i in i < 2 ? 0 : bDrops(m) } }
        let c = CohortComparison(fleet { _ in 1 }, by: .sdkVersion, a: "A", b: "B")
        let drops = c.metrics.first { $0.metric == .abnormalDisconnectRate }!
        #expect(drops.a == 0 && drops.ratio == nil)
        #expect(drops.significant && drops.worse && c.failsGate)
        #expect(c.verdict.hasPrefix("B has abnormal disconnects 100 % where A has none"), "\(c.verdict)")
        let once = CohortComparison(fleet { $0 == 7 ? 1 : 0 }, by: .sdkVersion, a: "A", b: "B")
        #expect(!once.failsGate, "\(once.verdict)")
    }

    /// Two meetings of two A and two B people, one B dropping in each: the
    /// resamples all give B 50 % (spread 0, p = 0), but four people are too
    /// little data to fail a gate on. With twenty such meetings it fails.
    @Test func tooLittleDataIsNeverSignificant() {
        let few = Array(Self.twoCohorts { _, i in i == 2 ? 1 : 0 }.prefix(2))
        let c = CohortComparison(few, by: .sdkVersion, a: "A", b: "B")
        let drops = c.metrics.first { $0.metric == .abnormalDisconnectRate }!
        #expect(c.a.insufficient && c.b.insufficient && drops.b == 0.5)
        #expect(drops.p == 0, "the degenerate test is still shown")
        #expect(!c.metrics.contains(where: \.significant) && !c.failsGate, "\(c.verdict)")
        #expect(c.verdict.hasPrefix("No significant difference") && c.verdict.hasSuffix("too little data for A and B"),
                "\(c.verdict)")
        let many = CohortComparison(Self.twoCohorts { _, i in i == 2 ? 1 : 0 }, by: .sdkVersion, a: "A", b: "B")
        #expect(many.failsGate, "\(many.verdict)")
    }

    /// Tied adjusted p-values: the verdict names the larger effect (a rise
    /// in disconnects from none), not the 1.001× stall rate it brings.
    @Test func theVerdictNamesTheLargerEffectOnTies() {
        var c = CohortComparison(Self.twoCohorts { m, i in i == 2 && m % 3 == 0 ? 1 : 0 }, by: .sdkVersion, a: "A", b: "B")
        // As Holm's step-down often leaves them: three metrics at one p.
        for i in c.metrics.indices where c.metrics[i].metric.gates {
            c.metrics[i].pAdjusted = 0.0032
            c.metrics[i].significant = true
            if c.metrics[i].metric != .abnormalDisconnectRate {
                c.metrics[i].ratio = 1.001
                c.metrics[i].ratioCI = ConfidenceInterval(lower: 1.0005, upper: 1.0015)
            }
        }
        #expect(c.verdict.hasPrefix("B has abnormal disconnects"), "\(c.verdict)")
        // A ratio further from 1 wins over one nearer.
        c.metrics[0].ratio = 1.8
        c.metrics[0].ratioCI = ConfidenceInterval(lower: 1.5, upper: 2.1)
        c.metrics[2].ratio = 1.2
        c.metrics[2].ratioCI = ConfidenceInterval(lower: 1.1, upper: 1.3)
        c.metrics[2].a = 0.1
        #expect(c.metrics[0].metric == .stallRate && c.verdict.hasPrefix("B stalls 1.8"), "\(c.verdict)")
    }

    /// A figure A has in a meeting or two is 0 in many resamples, where
    /// the log ratio is undefined: the difference is tested then, so that a
    /// regression from nearly none gates as one from none does. A null
    /// split of such a rare figure is still rarely significant.
    @Test func aRegressionFromNearlyNoneGates() {
        func fleet(aDrops: Set<Int>) -> [CohortMeeting] {
            Self.twoCohorts { m, i in i < 2 ? (i == 0 && aDrops.contains(m) ? 1 : 0) : 1 }
        }
        for drops in [Set([3]), Set([3, 11])] {
            let c = CohortComparison(fleet(aDrops: drops), by: .sdkVersion, a: "A", b: "B")
            let m = c.metrics.first { $0.metric == .abnormalDisconnectRate }!
            #expect(m.a! > 0 && m.significant && m.worse && c.failsGate, "\(drops.count): \(c.verdict)")
        }
        var alarms: [String] = []
        for run in 0..<100 {
            var rng = SplitMix64(seed: UInt64(run), stream: 5)
            let meetings = (0..<40).map { m in
                CohortMeeting(meeting: "m\(m)", start: Int64(m) * 3_600_000, participants: (0..<6).map { i in
                    var info = ParticipantContext.ClientInfo()
                    info.sdkVersion = rng.chance(0.5) ? "A" : "B"
                    return CohortParticipant(
                        uid: "u\(i)", engine: "sfu", client: info, watchedMs: 600_000, stalledMs: Int64(rng.below(6_000)),
                        lowTierMs: 0, measuredMs: 600_000, mosP50: 4.3,
                        abnormalDisconnects: rng.chance(0.015) ? 1 : 0, firstFrameMs: [800])
                })
            }
            let c = CohortComparison(meetings, by: .sdkVersion, a: "A", b: "B",
                                     options: BootstrapOptions(replicates: 400, seed: UInt64(run)))
            if c.metrics.contains(where: \.significant) { alarms.append("run \(run): \(c.verdict)") }
        }
        #expect(alarms.count <= 5, "\(alarms.count) of 100 null splits flagged: \(alarms)")
    }

    /// Ratios to two significant digits; more only to tell a narrow
    /// interval's ends apart, never for an interval of zero width.
    @Test func ratiosAreShownToTwoDigits() {
        #expect(CohortComparison.shown(0.3488, ConfidenceInterval(lower: 0.3488, upper: 0.3488)) == ("0.35", "0.35–0.35"))
        #expect(CohortComparison.shown(1.53, ConfidenceInterval(lower: 1.51, upper: 1.54)) == ("1.53", "1.51–1.54"))
        #expect(CohortComparison.shown(1.5, ConfidenceInterval(lower: 1.3, upper: 1.8)) == ("1.5", "1.3–1.8"))
    }

    /// A period of one meeting has no interval, even when the fleet is that
    /// one meeting (it is then drawn in every resample); a period of two
    /// has one.
    @Test func aPeriodOfOneMeetingHasNoInterval() {
        let all = Self.synthetic(meetings: 2, seed: 3) { _, i, _ in i % 2 == 0 ? "A" : "B" }
        let one = TrendTable([all[0]], every: .day)
        #expect(one.rows.count == 1 && one.rows[0].figures.stallRate != nil)
        #expect(one.rows[0].figures.stallRateCI == nil && one.rows[0].figures.lowTierShareCI == nil)
        let two = TrendTable(all.map { var m = $0; m.start = 0; return m }, every: .day)
        #expect(two.rows.count == 1 && two.rows[0].figures.stallRateCI != nil)
    }

    /// Random labels, whole meetings at a time (the case a participant-level
    /// interval gets wrong: meetings differ far more than participants of
    /// one meeting) and participant by participant: no metric significant
    /// in at least 95 of 100 seeded splits.
    @Test(arguments: [true, false]) func aNullSplitIsRarelySignificant(byMeeting: Bool) {
        var alarms: [String] = []
        for run in 0..<100 {
            let meetings = Self.synthetic(meetings: 40, seed: UInt64(1000 + run)) { m, i, rng in
                if byMeeting { return SplitMix64.mix(UInt64(m) &+ UInt64(run) << 32) & 1 == 0 ? "A" : "B" }
                return rng.chance(0.5) ? "A" : "B"
            }
            let c = CohortComparison(meetings, by: .sdkVersion, a: "A", b: "B",
                                     options: BootstrapOptions(replicates: 400, seed: UInt64(run)))
            if c.metrics.contains(where: \.significant) { alarms.append("run \(run): \(c.verdict)") }
        }
        #expect(alarms.count <= 5, "\(alarms.count) of 100 null splits flagged: \(alarms)")
    }

    @Test func holmAdjustsStepDown() {
        // Sorted 0.01, 0.02, 0.03, 0.5 → 0.04, 0.06, 0.06 (monotone), 0.5.
        let adjusted = Holm.adjusted([0.03, 0.5, 0.01, 0.02])
        #expect(adjusted.map { ($0 * 1000).rounded() / 1000 } == [0.06, 0.5, 0.04, 0.06])
        #expect(Holm.adjusted([]) == [])
    }

    @Test func versionsCompareAsDottedNumbers() {
        #expect(VersionOrder.less("5.9.2", "5.10.0"))
        // Parts past 64 bits are numbers too.
        #expect(VersionOrder.less("5.10.0", "5.100000000000000000000"))
        #expect(VersionOrder.less("5.9", "5.100000000000000000000"))
        #expect(!VersionOrder.less("5.100000000000000000000", "5.99999999999999999999"))
        #expect(!VersionOrder.less("5.10.0", "5.9.2"))
        #expect(VersionOrder.less("5.3", "5.3.0"))
        #expect(VersionOrder.less("5.3.0-beta", "5.3.1"))
        #expect(VersionOrder.less("14", "17.4.1"))
    }

    @Test func intervalsAreSeededAndDeterministic() throws {
        let meetings = Self.synthetic(meetings: 20, seed: 9) { _, i, _ in i < 3 ? "A" : "B" }
        let a = CohortTable(meetings, by: .sdkVersion)
        let b = CohortTable(meetings, by: .sdkVersion)
        #expect(a == b)
        let c = CohortTable(meetings, by: .sdkVersion, options: BootstrapOptions(seed: 7))
        #expect(c.cohorts.map(\.stallRate) == a.cohorts.map(\.stallRate))
        #expect(c.cohorts.map(\.stallRateCI) != a.cohorts.map(\.stallRateCI))
        for f in a.cohorts {
            let ci = try #require(f.stallRateCI)
            #expect(ci.contains(f.stallRate!))
        }
    }

    /// A value of 1 meeting is flagged and listed after every value with
    /// enough data, however bad its figures.
    @Test func tooLittleDataIsFlaggedAndNotRankedFirst() {
        var meetings = Self.synthetic(meetings: 20, seed: 4) { _, _, _ in "5.2.0" }
        meetings[0].participants[0].client.sdkVersion = "9.9.9"
        meetings[0].participants[0].stalledMs = meetings[0].participants[0].watchedMs / 2
        meetings[1].participants[0].client.sdkVersion = nil
        let t = CohortTable(meetings, by: .sdkVersion)
        #expect(t.cohorts.map(\.value) == ["5.2.0", "9.9.9"])
        #expect(t.cohorts[1].insufficient && !t.cohorts[0].insufficient)
        #expect(t.cohorts[1].stallRate! > t.cohorts[0].stallRate!)
        #expect(t.unknown.participants == 1 && t.unknown.value == nil)
        #expect(t.cohorts[0].participants == 118 && t.cohorts[0].meetings == 20)
    }

    @Test func figuresAreSumsAndPercentiles() {
        func p(_ v: String, watched: Int64, stalled: Int64, mos: Double?, ff: [Int64], dropped: Int = 0) -> CohortParticipant {
            var info = ParticipantContext.ClientInfo()
            info.netType = v
            return CohortParticipant(uid: v, engine: "sfu", client: info, watchedMs: watched, stalledMs: stalled,
                                     lowTierMs: stalled, measuredMs: watched, mosP50: mos, abnormalDisconnects: dropped,
                                     firstFrameMs: ff)
        }
        let meetings = [
            CohortMeeting(meeting: "a", start: 0, participants: [p("wifi", watched: 1000, stalled: 10, mos: 4.0, ff: [100, 200]),
                                                                 p("wifi", watched: 3000, stalled: 30, mos: 3.0, ff: [300], dropped: 2)]),
            CohortMeeting(meeting: "b", start: 0, participants: [p("wifi", watched: 0, stalled: 0, mos: nil, ff: [])]),
        ]
        let f = CohortTable(meetings, by: .netType).cohorts[0]
        #expect(f.participants == 3 && f.meetings == 2)
        #expect(f.watchedMs == 4000 && f.stalledMs == 40)
        #expect(f.stallRate == 0.01 && f.lowTierShare == 0.01)
        #expect(f.mosP50 == 3.0)  // nearest rank of [3.0, 4.0]
        #expect(f.firstFrameP90Ms == 300)
        #expect(f.abnormalDisconnectRate == 1.0 / 3.0)
    }
}

@Suite struct CohortFleetTests {
    /// The store path (summaries and join chunks) gives exactly the figures
    /// of analysing each stored meeting under the default config.
    @Test func storeFiguresEqualTheAnalysis() throws {
        let (store, _, cohorts) = CohortFleet.fixture
        #expect(cohorts.count == CohortFleet.meetings)
        for stored in cohorts {
            let log = try #require(try store.meetingLog(stored.meeting))
            let analysed = try CohortMeeting(log: log)
            #expect(analysed == stored, "meeting \(stored.meeting)")
        }
        let people = cohorts.flatMap(\.participants)
        // The fleet has clients that move between networks mid-call, and
        // their pieces add up to them.
        let split = people.filter { !$0.pieces.isEmpty }
        #expect(split.count >= 3, "\(split.count) split")
        for p in split {
            #expect(p.pieces.count >= 2 && Set(p.pieces.map(\.client.netType)).count == p.pieces.count)
            #expect(p.pieces.reduce(0) { $0 + $1.watchedMs } == p.watchedMs)
            #expect(p.pieces.reduce(0) { $0 + $1.stalledMs } == p.stalledMs)
            #expect(p.pieces.reduce(0) { $0 + $1.measuredMs } == p.measuredMs)
            #expect(p.pieces.reduce(0) { $0 + $1.lowTierMs } == p.lowTierMs)
            #expect(p.pieces.reduce(0) { $0 + $1.abnormalDisconnects } == p.abnormalDisconnects)
            #expect(p.pieces.flatMap(\.firstFrameMs).sorted() == p.firstFrameMs.sorted())
        }
        #expect(people.contains { $0.client.sdkVersion != nil } && people.contains { $0.client.sdkVersion == nil })
        #expect(people.contains { $0.abnormalDisconnects > 0 })
        #expect(people.contains { $0.engine == "cdn" && $0.measuredMs == 0 && $0.watchedMs > 0 })
    }

    /// The simulator's planted regression: SDK 5.3.0 stalls more than
    /// 5.2.3, and the interval of the ratio excludes 1; 5.3.1 (the fix)
    /// does not differ significantly.
    @Test func thePlantedSDKRegressionIsFound() throws {
        let c = CohortComparison(CohortFleet.cohorts, by: .sdkVersion, a: "5.2.3", b: "5.3.0")
        let stall = c.metrics[0]
        let ci = try #require(stall.ratioCI, "\(c)")
        #expect(ci.lower > 1, "\(ci)")
        #expect(stall.significant && c.failsGate)
        let fixed = CohortComparison(CohortFleet.cohorts, by: .sdkVersion, a: "5.2.3", b: "5.3.1")
        #expect(!fixed.metrics[0].significant, "\(fixed.verdict)")
        let table = CohortTable(CohortFleet.cohorts, by: .sdkVersion)
        #expect(table.cohorts.first?.value == "5.3.0")
    }

    @Test func cellularSpendsMoreTimeAtPoorOrBad() {
        let c = CohortComparison(CohortFleet.cohorts, by: .netType, a: "wifi", b: "cellular")
        let tier = c.metrics[1]
        #expect(tier.metric == .lowTierShare)
        #expect(tier.significant && tier.worse && (tier.ratioCI?.lower ?? 0) > 1, "\(c.verdict)")
    }

    /// Random labels on the simulated fleet's participants: no metric
    /// significant in at least 95 of 100 seeded splits.
    @Test func aNullSplitOfTheFleetIsRarelySignificant() {
        var alarms: [String] = []
        for run in 0..<100 {
            var rng = SplitMix64(seed: UInt64(run), stream: 77)
            var meetings = CohortFleet.cohorts
            for m in meetings.indices {
                for i in meetings[m].participants.indices {
                    meetings[m].participants[i].client.platform = rng.chance(0.5) ? "A" : "B"
                }
            }
            let c = CohortComparison(meetings, by: .platform, a: "A", b: "B",
                                     options: BootstrapOptions(replicates: 400, seed: UInt64(run)))
            if c.metrics.contains(where: \.significant) { alarms.append("run \(run): \(c.verdict)") }
        }
        #expect(alarms.count <= 5, "\(alarms.count) of 100 null splits flagged: \(alarms)")
    }
}

@Suite struct CohortTrendTests {
    @Test func periodsStartAtMidnightAndOnMondays() {
        // 2026-11-04T15:00Z is a Wednesday.
        let t = Time.parse("2026-11-04T15:00:00Z")!
        #expect(TrendPeriod.day.start(of: t) == Time.parse("2026-11-04")!)
        #expect(TrendPeriod.week.start(of: t) == Time.parse("2026-11-02")!)
        #expect(TrendPeriod.week.start(of: Time.parse("2026-11-02")!) == Time.parse("2026-11-02")!)
        #expect(TrendPeriod.week.start(of: Time.parse("2026-11-01T23:59:59Z")!) == Time.parse("2026-10-26")!)
    }

    /// Per period, the figures are those of the cohort table of that
    /// period's meetings alone (the intervals differ: other resamples).
    @Test func eachPeriodHasItsMeetingsFigures() {
        let fleet = CohortFleet.cohorts
        let weekly = TrendTable(fleet, every: .week)
        #expect(weekly.rows.count >= 2)
        #expect(weekly.rows.map(\.periodStart) == weekly.rows.map(\.periodStart).sorted())
        #expect(weekly.rows.reduce(0) { $0 + $1.figures.meetings } == fleet.filter { $0.start != nil }.count)
        for row in weekly.rows {
            let mine = fleet.filter { $0.start.map { TrendPeriod.week.start(of: $0) } == row.periodStart }
            let alone = CohortTable.figures(mine.map(CohortMeetingSums.init), by: nil, options: .default) { _, _ in "" }
            #expect(alone.count == 1)
            #expect(alone[0].stallRate == row.figures.stallRate && alone[0].participants == row.figures.participants)
            #expect(row.figures.stallRateCI.map { $0.contains(row.figures.stallRate!) } ?? row.figures.insufficient)
        }
        let split = TrendTable(fleet, every: .week, by: .sdkVersion)
        #expect(split.values.first == "5.1.0" && split.values.count > 2 && split.values.last! == nil)
        #expect(split.rows.reduce(0) { $0 + $1.figures.participants } == weekly.rows.reduce(0) { $0 + $1.figures.participants })
    }
}
