import MQABase
import MQAModel

/// The counts of a sweep over meetings added one at a time, holding at
/// most a batch of them flattened: the counts add up exactly over
/// meetings (what `--partials` and `--merge` rely on), so each batch is
/// counted and let go, and a fleet of any size is tuned in bounded memory.
/// Holding the whole corpus took 370 MB for 3,000 meetings.
public struct TuningTally: Sendable {
    public let configs: [TierConfig]
    public let options: TuningOptions
    /// Whether each meeting's share of the counts is kept (`partCounts`).
    public let keepsParts: Bool
    /// Reports held before the batch is counted (`add`).
    public let batchReports: Int
    private var batch: TuningCorpus
    /// The batches counted so far, their lead times apart in `leads`;
    /// `nil` before the first.
    private var counted: [TuningCounts]?
    /// Each config's lead times so far, packed: whole, they took 50 MB
    /// for 32 configs over 3,000 meetings.
    private var leads: [PackedLeads] = []
    /// With `keepsParts`: `partCounts[config][part]`, meetings in the order added.
    public private(set) var partCounts: [[TuningPartCounts]]
    private var countedFigures = (reports: 0, connections: 0, stalls: 0, countedReports: 0, parts: 0)
    /// The time spent counting so far (not adding): the sweep's own speed.
    public private(set) var countingTime = Duration.zero

    /// Bytes of columns a batch may hold by default.
    public static let defaultBatchBytes = 32 << 20

    /// `batchReports`: the default holds about `defaultBatchBytes` of
    /// columns; `Int.max` leaves the counting to `flush` and `finish`.
    public init(configs: [TierConfig], options: TuningOptions, keepsParts: Bool = false, batchReports: Int? = nil) {
        self.configs = configs
        self.options = options
        self.keepsParts = keepsParts
        batch = TuningCorpus(mosFor: configs)
        // ts and rtt, then a MOS column per (source, E-model) pair.
        self.batchReports = batchReports ?? max(1, Self.defaultBatchBytes / (16 + 8 * batch.mosKeys.count))
        partCounts = keepsParts ? configs.map { _ in [] } : []
    }

    /// Reports added (a windowed client's, all of them).
    public var reportCount: Int { countedFigures.reports + batch.reportCount }
    /// Reports that count: inside their client's windows (`TuningCorpus.countedReportCount`).
    public var countedReportCount: Int { countedFigures.countedReports + batch.countedReportCount }
    public var connectionCount: Int { countedFigures.connections + batch.connectionCount }
    public var stallCount: Int { countedFigures.stalls + batch.stallCount }
    /// Meetings (parts) added.
    public var partCount: Int { countedFigures.parts + batch.partCount }
    /// Reports added but not counted yet.
    public var heldReports: Int { batch.reportCount }

    /// Makes room for the first `reports` reports (no more than a batch).
    public mutating func reserve(reports: Int) {
        batch.reserve(reports: min(reports, batchReports))
    }

    /// Adds one meeting; counts the batch first when the meeting could
    /// take it past `batchReports` (its columns would double).
    public mutating func add(_ part: TuningCorpus.Part) {
        if batch.reportCount > 0, batchReports != .max,
           batch.reportCount + part.log.clients.reduce(0, { $0 + $1.reports.count }) > batchReports {
            flush()
        }
        batch.add(part)
    }

    /// Counts the meetings held and lets them go; their columns' memory
    /// too unless `keepingCapacity` (for a batch of about the same size next).
    public mutating func flush(keepingCapacity: Bool = true) {
        guard batch.partCount > 0 else { return }
        let started = ContinuousClock.now
        defer { countingTime += ContinuousClock.now - started }
        // Each worker packs its config's lead times into those before, so
        // that a grid's histograms are never all whole at once, and lets
        // the old ones go as it does: the slots hold the only copy.
        let packed = ConcurrentSlots<PackedLeads>(count: configs.count)
        for i in configs.indices { packed.set(i, i < leads.count ? leads[i] : PackedLeads()) }
        leads = []
        let keepsParts = keepsParts
        let results = Tuning.forEachConfig(batch, configs: configs, options: options) { kernel, i, config, mos in
            let (counts, parts) = keepsParts ? Tuning.countsByPart(kernel, config, mos: mos) : (kernel.counts(config, mos: mos), [])
            packed.set(i, packed.get(i)!.merged(with: counts.leads))
            return (counts.replacingLeads(with: []), parts)
        }
        leads = configs.indices.map { packed.get($0)! }
        if keepsParts {
            for i in configs.indices { partCounts[i] += results[i].1 }
        }
        counted = counted.map { zip($0, results).map { $0 + $1.0 } } ?? results.map(\.0)
        letBatchGo(keepingCapacity: keepingCapacity)
    }

    /// The counts of every meeting added, in `configs` order; with
    /// `medianLeadOnly`, each config's lead times cut to their median
    /// (`TuningCounts.keepingMedianLeadOnly`), as a score needs them.
    public mutating func finish(medianLeadOnly: Bool) -> [TuningCounts] {
        if counted == nil && !keepsParts {
            // One batch: cut as counted, so that a grid of many configs
            // never holds every config's lead times at once.
            let started = ContinuousClock.now
            defer { countingTime += ContinuousClock.now - started }
            let counts = Tuning.countAll(batch, configs: configs, options: options, medianLeadOnly: medianLeadOnly)
            letBatchGo()
            return counts
        }
        flush()
        guard let counted else { return Tuning.countAll(TuningCorpus(), configs: configs, options: options) }
        return counted.indices.map { i in
            let packed = leads[i]
            guard medianLeadOnly else { return counted[i].replacingLeads(with: packed.bins) }
            // The median alone, as `keepingMedianLeadOnly` leaves it.
            let median = packed.medianMs.map { [TuningCounts.LeadBin(ms: $0, count: packed.count)] } ?? []
            return counted[i].replacingLeads(with: median).keepingMedianLeadOnly()
        }
    }

    /// Empties the batch, its figures kept.
    private mutating func letBatchGo(keepingCapacity: Bool = true) {
        countedFigures.reports += batch.reportCount
        countedFigures.countedReports += batch.countedReportCount
        countedFigures.connections += batch.connectionCount
        countedFigures.stalls += batch.stallCount
        countedFigures.parts += batch.partCount
        batch.removeAll(keepingCapacity: keepingCapacity)
    }
}
