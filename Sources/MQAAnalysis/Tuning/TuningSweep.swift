import Foundation
import Dispatch
import MQABase
import MQAModel

/// `mqa tune`: scores tier configs against the stalls of a corpus.
public enum Tuning {
    /// Scores one config (`config` and `options` must be valid).
    public static func score(_ corpus: TuningCorpus, config: TierConfig,
                             options: TuningOptions = TuningOptions()) -> TuningScore {
        let column = mosColumn(corpus, source: config.mos, emodel: config.emodel)
        return column.withUnsafeBufferPointer {
            TuningKernel(corpus: corpus, options: options).score(config, mos: $0)
        }
    }

    /// Scores every config on all cores and returns them ranked: best F1
    /// first, then higher recall, then fewer alarms per hour, then grid
    /// order (`configs` order), so the ranking is total and deterministic.
    /// Each result carries its Pareto flag (recall vs alarms per hour).
    public static func sweep(_ corpus: TuningCorpus, configs: [TierConfig],
                             options: TuningOptions = TuningOptions()) -> [TuningResult] {
        rank(configs: configs, scores: scoreAll(corpus, configs: configs, options: options))
    }

    /// Ranks scored configs as `sweep` does (`scores[i]` belongs to
    /// `configs[i]`, whose index is its grid index). `mqa tune --merge`
    /// ranks merged partials with this too.
    public static func rank(configs: [TierConfig], scores: [TuningScore]) -> [TuningResult] {
        precondition(configs.count == scores.count)
        var results = configs.indices.map {
            TuningResult(config: configs[$0], score: scores[$0], gridIndex: $0, pareto: false)
        }
        markPareto(&results)
        results.sort(by: ranksBefore)
        return results
    }

    /// Scores in `configs` order.
    public static func scoreAll(_ corpus: TuningCorpus, configs: [TierConfig],
                                options: TuningOptions = TuningOptions()) -> [TuningScore] {
        countAll(corpus, configs: configs, options: options, medianLeadOnly: true).map(TuningScore.init)
    }

    /// The additive counts of every config, in `configs` order: what
    /// `mqa tune --partials` prints, and what `scoreAll` derives its scores
    /// from. With `medianLeadOnly`, for a score alone, each config's lead
    /// times are cut to their median as soon as counted
    /// (`TuningCounts.keepingMedianLeadOnly`).
    public static func countAll(_ corpus: TuningCorpus, configs: [TierConfig],
                                options: TuningOptions = TuningOptions(), medianLeadOnly: Bool = false) -> [TuningCounts] {
        forEachConfig(corpus, configs: configs, options: options) { kernel, _, config, mos in
            let counts = kernel.counts(config, mos: mos)
            return medianLeadOnly ? counts.keepingMedianLeadOnly() : counts
        }
    }

    /// `countAll`'s counts, and with them each part's (meeting's) share of
    /// them per config (`parts[config][part]`), in the order the parts were
    /// added: what a bootstrap over meetings resamples
    /// (`CohortTuning.gainInterval`).
    public static func countAllByPart(_ corpus: TuningCorpus, configs: [TierConfig],
                                      options: TuningOptions = TuningOptions())
        -> (counts: [TuningCounts], parts: [[TuningPartCounts]]) {
        let both = forEachConfig(corpus, configs: configs, options: options) { kernel, _, config, mos in
            countsByPart(kernel, config, mos: mos)
        }
        return (both.map(\.0), both.map(\.1))
    }

    /// One config's counts over the kernel's corpus, and each part's share.
    static func countsByPart(_ kernel: TuningKernel, _ config: TierConfig, mos: UnsafeBufferPointer<Double>)
        -> (TuningCounts, [TuningPartCounts]) {
        let corpus = kernel.corpus
        var perClient = [Int](repeating: 0, count: 4 * corpus.clientCount)
        let counts = perClient.withUnsafeMutableBufferPointer { kernel.counts(config, mos: mos, perClient: $0) }
        let parts = (0..<corpus.partCount).map { p in
            var (alarms, useful, stalls, covered) = (0, 0, 0, 0)
            for c in corpus.partClient[p]..<corpus.partClient[p + 1] {
                alarms += perClient[4 * c]
                useful += perClient[4 * c + 1]
                stalls += perClient[4 * c + 2]
                covered += perClient[4 * c + 3]
            }
            return TuningPartCounts(alarms: alarms, useful: useful, stalls: stalls, covered: covered)
        }
        return (counts, parts)
    }

    /// `count` of every config (given with its index), on all cores, in
    /// `configs` order.
    static func forEachConfig<Result: Sendable>(
        _ corpus: TuningCorpus, configs: [TierConfig], options: TuningOptions,
        _ count: @escaping @Sendable (TuningKernel, Int, TierConfig, UnsafeBufferPointer<Double>) -> Result) -> [Result] {
        // The MOS column depends only on (mos, emodel): computed once per
        // distinct pair, shared by every config that uses it.
        var columnIndex: [MOSKey: Int] = [:]
        var columns: [ContiguousArray<Double>] = []
        var columnOf: [Int] = []
        for c in configs {
            let key = MOSKey(source: c.mos, emodel: c.emodel)
            if columnIndex[key] == nil {
                columnIndex[key] = columns.count
                columns.append(mosColumn(corpus, source: c.mos, emodel: c.emodel))
            }
            columnOf.append(columnIndex[key]!)
        }
        let kernel = TuningKernel(corpus: corpus, options: options)
        let (mosColumns, columnFor) = (columns, columnOf)  // immutable copies for the workers
        let out = ConcurrentSlots<Result>(count: configs.count)
        // The workers share only immutable values and write their own slots.
        let shared = (kernel, mosColumns, columnFor, configs)
        let work: @Sendable (Int) -> Void = { i in
            let (kernel, mosColumns, columnFor, configs) = shared
            out.set(i, mosColumns[columnFor[i]].withUnsafeBufferPointer { count(kernel, i, configs[i], $0) })
        }
        // MQA_THREADS=1 runs on one core, for benchmarks that compare.
        if ProcessInfo.processInfo.environment["MQA_THREADS"] == "1" {
            for i in configs.indices { work(i) }
        } else {
            DispatchQueue.concurrentPerform(iterations: configs.count, execute: work)
        }
        return configs.indices.map { out.get($0)! }
    }

    /// The ranking of `sweep`.
    static func ranksBefore(_ a: TuningResult, _ b: TuningResult) -> Bool {
        // F1 compared exactly: 2pr/(p + r) in doubles can differ by an ulp
        // between equal F1s (4/11 from p = 1/4, r = 2/3 and from p = 2/9,
        // r = 1), and that noise, not recall, then decided the order.
        let f1 = a.score.compareF1(b.score)
        if f1 != 0 { return f1 > 0 }
        if a.score.recall != b.score.recall { return a.score.recall > b.score.recall }
        if a.score.alarmsPerHour != b.score.alarmsPerHour { return a.score.alarmsPerHour < b.score.alarmsPerHour }
        return a.gridIndex < b.gridIndex
    }

    /// Sets `pareto` on the results not dominated in (recall ↑, alarms/hour ↓).
    /// Equal points do not dominate each other.
    static func markPareto(_ results: inout [TuningResult]) {
        let order = results.indices.sorted {
            let a = results[$0].score, b = results[$1].score
            return a.alarmsPerHour != b.alarmsPerHour ? a.alarmsPerHour < b.alarmsPerHour : a.recall > b.recall
        }
        var bestBefore = -Double.infinity  // best recall among strictly fewer alarms/hour
        var g = 0
        while g < order.count {
            let rate = results[order[g]].score.alarmsPerHour
            let groupBest = results[order[g]].score.recall
            var k = g
            while k < order.count, results[order[k]].score.alarmsPerHour == rate {
                let r = results[order[k]].score.recall
                results[order[k]].pareto = !(bestBefore >= r || groupBest > r)
                k += 1
            }
            bestBefore = max(bestBefore, groupBest)
            g = k
        }
    }

    /// Each corpus report's MOS under one (source, emodel), by the rule the
    /// analysis uses (`ReportMOS`).
    static func mosColumn(_ corpus: TuningCorpus, source: MOSSource, emodel: EModelParams) -> ContiguousArray<Double> {
        if let k = corpus.mosKeys.firstIndex(of: MOSKey(source: source, emodel: emodel)) { return corpus.mosColumns[k] }
        precondition(corpus.keepsMOSInputs, "the corpus was made for other MOS settings")
        var column = ContiguousArray<Double>(repeating: 0, count: corpus.heldReportCount)
        column.withUnsafeMutableBufferPointer { out in
            corpus.sdkMOS.withUnsafeBufferPointer { sdk in
            corpus.rtt.withUnsafeBufferPointer { rtt in
            corpus.loss.withUnsafeBufferPointer { loss in
            corpus.jitter.withUnsafeBufferPointer { jitter in
                for i in 0..<out.count {
                    out[i] = ReportMOS.mos(sdkMOS: sdk[i], rtt: rtt[i], loss: loss[i], jitter: jitter[i],
                                           source: source, emodel: emodel)
                }
            }
            }
            }
            }
        }
        return column
    }
}

/// One meeting's alarms, useful alarms, stalls and covered stalls under one
/// config (`Tuning.countAllByPart`): enough for its F1 once summed. Kept in
/// 32-bit fields, since `tune --by` keeps one per meeting, cohort and
/// config (a meeting would need a billion reports to overflow one).
public struct TuningPartCounts: Sendable, Equatable {
    private var counts: SIMD4<Int32>

    public var alarms: Int { Int(counts[0]) }
    public var useful: Int { Int(counts[1]) }
    public var stalls: Int { Int(counts[2]) }
    public var covered: Int { Int(counts[3]) }

    public init(alarms: Int = 0, useful: Int = 0, stalls: Int = 0, covered: Int = 0) {
        counts = SIMD4(Int32(clamping: alarms), Int32(clamping: useful), Int32(clamping: stalls), Int32(clamping: covered))
    }

    /// A meeting's share counted in two batches, made one.
    public static func += (a: inout TuningPartCounts, b: TuningPartCounts) {
        a = TuningPartCounts(alarms: a.alarms + b.alarms, useful: a.useful + b.useful, stalls: a.stalls + b.stalls,
                             covered: a.covered + b.covered)
    }
}
