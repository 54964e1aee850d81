import Foundation
import MQASimulator
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// `tune` counts a fleet a batch of meetings at a time: whatever the batch,
/// the counts, figures and per-meeting shares are those of one pass over
/// the whole corpus.
@Suite struct TuningTallyTests {
    /// Eight simulated meetings, ingested.
    static func simulatedStore() throws -> (Scratch, EventStore) { try simulatedMeetings(seed: 3, count: 8) }

    static let logs: [MeetingLog] = {
        let (scratch, store) = try! simulatedStore()
        return withExtendedLifetime(scratch) { try! store.meetings().compactMap { try store.meetingLog($0) } }
    }()

    /// `tune` reads a meeting without its reports, then each client's in
    /// its turn: the same clients as the whole log.
    @Test func aMeetingReadClientByClientIsTheWholeLog() throws {
        let (scratch, store) = try Self.simulatedStore()
        defer { withExtendedLifetime(scratch) {} }
        var total = 0
        for log in Self.logs {
            let (bare, reports) = try #require(try store.meetingLogWithoutReports(log.meeting))
            #expect(bare.clients.count == log.clients.count && bare.engine == log.engine && bare.title == log.title)
            #expect(bare.clients.allSatisfy { $0.reports.count == 0 })
            for i in log.clients.indices {
                let c = try reports.client(i, of: bare)
                #expect(c.uid == log.clients[i].uid && c.events == log.clients[i].events && c.context == log.clients[i].context)
                // Bit for bit (a null MOS is NaN, never equal to itself).
                let (a, b) = (c.reports, log.clients[i].reports)
                #expect(a.ts == b.ts && a.loss == b.loss && a.rtt == b.rtt && a.jitter == b.jitter && a.bitrate == b.bitrate
                        && a.mos.map(\.bitPattern) == b.mos.map(\.bitPattern))
                total += a.count
            }
        }
        #expect(total == Self.logs.reduce(0) { $0 + $1.clients.reduce(0) { $0 + $1.reports.count } } && total > 2_000)
        #expect(try store.meetingLogWithoutReports("no-such-meeting") == nil)
    }

    static var configs: [TierConfig] {
        var calm = TierConfig()
        calm.hysteresis = 0.2
        var emodel = TierConfig()
        emodel.mos = .emodel
        return [TierConfig(), calm, emodel]
    }

    @Test(arguments: [1, 700, 20_000, nil] as [Int?])
    func batchesCountAsTheWhole(batchReports: Int?) {
        let logs = Self.logs, configs = Self.configs
        let whole = TuningCorpus(parts: logs.map { TuningCorpus.Part(log: $0) }, mosFor: configs)
        #expect(logs.count == 8 && whole.reportCount > 2_000 && whole.stallCount > 20)
        let (counts, parts) = Tuning.countAllByPart(whole, configs: configs)
        #expect(counts.allSatisfy { $0.leads.count > 3 }, "lead times to merge")
        for (medianOnly, keepsParts) in [(false, false), (true, false), (false, true), (true, true)] {
            var tally = TuningTally(configs: configs, options: TuningOptions(), keepsParts: keepsParts,
                                    batchReports: batchReports)
            var held = 0
            for log in logs {
                tally.add(TuningCorpus.Part(log: log))
                held = max(held, tally.heldReports)
            }
            if let batchReports, batchReports < whole.reportCount { #expect(held < whole.reportCount) }
            #expect(tally.finish(medianLeadOnly: medianOnly) == (medianOnly ? counts.map { $0.keepingMedianLeadOnly() } : counts))
            #expect(tally.partCounts == (keepsParts ? parts : []))
            #expect(tally.reportCount == whole.reportCount && tally.stallCount == whole.stallCount
                    && tally.connectionCount == whole.connectionCount && tally.partCount == logs.count
                    && tally.countedReportCount == whole.countedReportCount)
        }
    }

    /// `tune --by` counts its fleet and cohorts in batches too: the same
    /// rankings and gain intervals, windows of a changed network included,
    /// whether each client is held, walked block by block, or so long for
    /// its batch that the fleet counts it before the cohorts take it.
    @Test func cohortsInBatchesAreTheWhole() throws {
        var configs = Self.configs
        for h in [0.05, 0.1, 0.3] {
            var c = TierConfig()
            c.hysteresis = h
            c.upDwell = 3
            configs.append(c)
        }
        var intervals = 0, longClients = 0, changed = 0
        for field in [CohortField.netType, .platform] {
            var whole = CohortTuning.Builder(by: field, configs: configs, options: TuningOptions())
            var small = CohortTuning.Builder(by: field, configs: configs, options: TuningOptions(), batchReports: 500)
            var walked = CohortTuning.Builder(by: field, configs: configs, options: TuningOptions(), batchReports: 60)
            var rng = SplitMix64(seed: 5)
            for log in Self.logs {
                whole.add(log)
                small.add(log)
                var bare = log
                for i in bare.clients.indices { bare.clients[i].reports = ReportColumns() }
                try walked.add(bare, walking: { try ConnectedReports(bare.clients[$0], reports: randomBlocks(log.clients[$0].reports, rng: &rng)) })
            }
            let a = whole.finish()
            for b in [small.finish(), walked.finish()] {
                #expect(a.fleet == b.fleet && a.cohorts.count == b.cohorts.count && a.cohorts.count > 1)
                for (x, y) in zip(a.cohorts, b.cohorts) {
                    #expect(x.value == y.value && x.clients == y.clients && x.stalls == y.stalls && x.reports == y.reports
                            && x.meetings == y.meetings && x.ranking == y.ranking && x.fleetBest == y.fleetBest && x.gainCI == y.gainCI)
                }
            }
            for x in a.cohorts { if let ci = x.gainCI, ci.lower != ci.upper { intervals += 1 } }
            longClients += Self.logs.reduce(0) { $0 + $1.clients.count { 2 * $0.reports.count > 60 } }
            changed += Self.logs.reduce(0) { $0 + $1.clients.count { ClientFieldTimeline($0, field: field).changes } }
        }
        #expect(changed > 0, "a client counted in windows")
        #expect(intervals > 0, "a gain was resampled")
        #expect(longClients > 10, "clients counted in the fleet before their cohorts")
    }
}

/// The packed lead-time histograms a tally keeps between batches.
@Suite struct PackedLeadsTests {
    func randomBins(_ r: inout SplitMix64) -> [TuningCounts.LeadBin] {
        var bins: [TuningCounts.LeadBin] = []
        var ms = Int64(r.next() % 3)
        for _ in 0..<Int(r.next() % 60) {
            // Gaps and counts of every varint length, up to 2^40 ms, and
            // runs of bins 1 ms apart of any length.
            let gap: Int64 = r.next() % 4 == 0 ? Int64(r.next() % (1 << 40))
                : r.next() % 3 == 0 ? Int64(r.next() % 200) : 0
            ms += gap + (bins.isEmpty ? 0 : 1)
            let count = r.next() % 5 == 0 ? Int(r.next() % 1_000_000) + 1 : Int(r.next() % 3) + 1
            bins.append(TuningCounts.LeadBin(ms: ms, count: count))
        }
        return bins
    }

    @Test func roundTripsMergesAndFindsTheMedianAsTheHistogramDoes() {
        var r = SplitMix64(seed: 41)
        for _ in 0..<500 {
            let a = randomBins(&r), b = randomBins(&r)
            let packed = PackedLeads(a)
            #expect(packed.bins == a && packed.binCount == a.count)
            let counts = TuningCounts(covered: Int.max / 4, leadTimes: []).replacingLeads(with: a)
            #expect(packed.count == counts.leadCount && packed.medianMs == counts.medianLeadMs)
            let sum = (counts + TuningCounts().replacingLeads(with: b)).leads
            let merged = packed.merged(with: b)
            #expect(merged.bins == sum && merged.count == sum.reduce(0) { $0 + $1.count })
            #expect(merged == PackedLeads(sum))
        }
        #expect(PackedLeads().medianMs == nil && PackedLeads().bins.isEmpty)
    }

    /// What the packing is for: a fleet's histogram is every ms of the
    /// first seconds, each with many stalls, then a sparse tail of single
    /// ones. The dense part takes a byte a bin, the tail's a byte a bin
    /// for gaps under 32 ms.
    @Test func aDenseHeadAndASparseTailTakeAByteABin() {
        var bins = (0..<10_000).map { TuningCounts.LeadBin(ms: Int64($0), count: 15 + $0 % 7) }
        bins += (1...5_000).map { TuningCounts.LeadBin(ms: 10_000 + Int64($0) * 31, count: 1) }
        let packed = PackedLeads(bins)
        #expect(packed.bins == bins)
        #expect(packed.bytes.count <= 15_010, "\(packed.bytes.count) bytes")
    }

    /// A run's length has 3 bytes: a longer run goes on as another.
    @Test func aRunLongerThanItsLengthHoldsIsTwo() {
        let bins = (0..<(1 << 21) + 10).map { TuningCounts.LeadBin(ms: 7 + Int64($0), count: 1 + $0 % 3) }
        let packed = PackedLeads(bins)
        #expect(packed.bins == bins && packed.binCount == bins.count)
        #expect(packed.medianMs == PackedLeads().merged(with: bins).medianMs)
    }
}
