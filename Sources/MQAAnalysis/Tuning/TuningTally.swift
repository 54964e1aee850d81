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
    private var countedFigures = (reports: 0, swept: 0, connections: 0, stalls: 0, countedReports: 0, parts: 0)
    /// Whether the meeting last counted was not yet whole: the batch's
    /// first part is more of it.
    private var continuesPart = false
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
        // 16 bytes a report, then 8 per MOS column ((source, E-model)
        // pair): as many reports as when the corpus held each one's RTT
        // beside its ts. The columns now take 8 bytes less; what a batch's
        // count holds beside them (lead times, each meeting's share) grows
        // with its reports, and a batch of 8 + 8 per column raised `tune
        // --by`'s peak on 3,000 meetings by 4 MiB where this lowers it by 11.
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
    /// Reports the kernel has run or will run over: those added with a
    /// measured RTT (`TuningCorpus.heldReportCount`).
    public var sweptReportCount: Int { countedFigures.swept + batch.heldReportCount }

    /// Makes room for the first `reports` reports (no more than a batch).
    public mutating func reserve(reports: Int) {
        batch.reserve(reports: min(reports, batchReports))
    }

    /// Adds one meeting. The batch is counted first when the meeting could
    /// take it past `batchReports` (its columns would double), and between
    /// its clients when it alone is longer than a batch.
    public mutating func add(_ part: TuningCorpus.Part) {
        if batch.reportCount > 0, batchReports != .max,
           batch.reportCount + part.log.clients.reduce(0, { $0 + $1.reports.count }) > batchReports {
            flush()
        }
        let engine = part.log.engine
        for (i, client) in part.log.clients.enumerated() {
            add(client: client, engine: engine, windows: i < part.windows.count ? part.windows[i] : nil)
        }
        endPart()
    }

    /// Adds a meeting a client at a time, each client's reports walked
    /// by `reports(i)` (`ConnectedReports`): `log` may come without its
    /// reports, and a client of millions of them is read block by block,
    /// never held beside the batch it fills. Throws what reading them
    /// throws.
    public mutating func add(_ log: MeetingLog, walking reports: (Int) throws -> ConnectedReports) throws {
        let engine = log.engine  // reads every client's events: once a meeting
        for i in log.clients.indices { try add(client: log.clients[i], reports: reports(i), engine: engine, windows: nil) }
        endPart()
    }

    /// Adds one client of the meeting being added (`TuningCorpus.add(client:engine:windows:)`),
    /// counting the batch first when the client would take it past
    /// `batchReports`; `endPart` closes the meeting. A meeting of thousands
    /// of clients is then held a client at a time.
    public mutating func add(client: ClientLog, engine: String?, windows: [TuningCorpus.Window]?) {
        // Reports held in memory are read without any failure.
        try! add(client: client, reports: ConnectedReports(client), engine: engine, windows: windows)
    }

    /// `add(client:engine:windows:)` of `client` whose reports `reports`
    /// walks (`client.reports` is not read). Throws what reading them throws.
    public mutating func add(client: ClientLog, reports: ConnectedReports, engine: String?,
                             windows: [TuningCorpus.Window]?) throws {
        if batch.reportCount > 0, batchReports != .max, batch.reportCount + reports.reportCount > batchReports {
            flush()
        }
        try batch.add(client: client, reports: reports, engine: engine, windows: windows)
    }

    /// Closes the meeting whose clients were added since the last one closed.
    public mutating func endPart() {
        if continuesPart && batch.clientCount == 0 && batch.partCount == 0 {
            // Its clients were all counted with the batch before.
            countedFigures.parts += 1
            continuesPart = false
            return
        }
        batch.endPart()
    }

    /// Counts the meetings held and lets them go; their columns' memory
    /// too unless `keepingCapacity` (for a batch of about the same size next).
    public mutating func flush(keepingCapacity: Bool = true) {
        // A meeting whose clients are not all added yet is counted as a part
        // now; its share goes on with the next batch's first part.
        let open = batch.hasOpenPart
        if open { batch.endPart() }
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
            for i in configs.indices {
                var shares = results[i].1[...]
                if continuesPart, let first = shares.popFirst() { partCounts[i][partCounts[i].count - 1] += first }
                partCounts[i] += shares
            }
        }
        counted = counted.map { zip($0, results).map { $0 + $1.0 } } ?? results.map(\.0)
        // A part is counted when it ends: one going on into the next batch
        // is not yet.
        if open { countedFigures.parts -= 1 }
        continuesPart = open
        letBatchGo(keepingCapacity: keepingCapacity)
    }

    /// The counts of every meeting added, in `configs` order; with
    /// `medianLeadOnly`, each config's lead times cut to their median
    /// (`TuningCounts.keepingMedianLeadOnly`), as a score needs them.
    public mutating func finish(medianLeadOnly: Bool) -> [TuningCounts] {
        if batch.hasOpenPart { endPart() }
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
        countedFigures.swept += batch.heldReportCount
        countedFigures.countedReports += batch.countedReportCount
        countedFigures.connections += batch.connectionCount
        countedFigures.stalls += batch.stallCount
        countedFigures.parts += batch.partCount
        batch.removeAll(keepingCapacity: keepingCapacity)
    }
}
