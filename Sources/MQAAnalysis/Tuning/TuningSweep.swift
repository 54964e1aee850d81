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
        let out = ConcurrentSlots<TuningCounts>(count: configs.count)
        // The workers share only immutable values and write their own slots.
        let shared = (kernel, mosColumns, columnFor, configs)
        let work: @Sendable (Int) -> Void = { i in
            let (kernel, mosColumns, columnFor, configs) = shared
            let counts = mosColumns[columnFor[i]].withUnsafeBufferPointer { kernel.counts(configs[i], mos: $0) }
            out.set(i, medianLeadOnly ? counts.keepingMedianLeadOnly() : counts)
        }
        // MQA_THREADS=1 runs on one core, for benchmarks that compare.
        if ProcessInfo.processInfo.environment["MQA_THREADS"] == "1" {
            for i in configs.indices { work(i) }
        } else {
            DispatchQueue.concurrentPerform(iterations: configs.count, execute: work)
        }
        return configs.indices.map { out.get($0)! }
    }

    /// Each part's (meeting's) share of `config`'s counts, in the order the
    /// parts were added: what a bootstrap over meetings resamples
    /// (`CohortTuning.gainInterval`). Summed, they are `countAll`'s.
    public static func partCounts(_ corpus: TuningCorpus, config: TierConfig,
                                  options: TuningOptions = TuningOptions()) -> [TuningPartCounts] {
        let column = mosColumn(corpus, source: config.mos, emodel: config.emodel)
        var perClient = [Int](repeating: 0, count: 4 * corpus.clientCount)
        perClient.withUnsafeMutableBufferPointer { out in
            column.withUnsafeBufferPointer { mos in
                _ = TuningKernel(corpus: corpus, options: options).counts(config, mos: mos, perClient: out)
            }
        }
        return (0..<corpus.partCount).map { p in
            var sum = TuningPartCounts()
            for c in corpus.partClient[p]..<corpus.partClient[p + 1] {
                sum.alarms += perClient[4 * c]
                sum.useful += perClient[4 * c + 1]
                sum.stalls += perClient[4 * c + 2]
                sum.covered += perClient[4 * c + 3]
            }
            return sum
        }
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
        var column = ContiguousArray<Double>(repeating: 0, count: corpus.reportCount)
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
/// config (`Tuning.partCounts`): enough for its F1 once summed.
public struct TuningPartCounts: Sendable, Equatable {
    public var alarms = 0
    public var useful = 0
    public var stalls = 0
    public var covered = 0

    public init(alarms: Int = 0, useful: Int = 0, stalls: Int = 0, covered: Int = 0) {
        self.alarms = alarms
        self.useful = useful
        self.stalls = stalls
        self.covered = covered
    }
}
