import MQABase
import MQAModel

/// Everything the tuning sweep reads, flattened once from the logs into
/// contiguous columns so that each config is one tight pass over memory.
///
/// Only what a config can change is left to the sweep: the corpus holds the
/// reports inside connections (reports outside count nowhere) that carry a
/// measured RTT (one without is cold under any config, and a cold report
/// moves no tier, hold or gap), connection bounds, and each client's stall
/// start times (stalls do not depend on the tier config).
public struct TuningCorpus: Sendable, Equatable {
    // The reports kept, concatenated in client, connection, ts order.
    public private(set) var ts = ContiguousArray<Int64>()
    /// Kept with the MOS inputs only (the E-model reads it): the sweep
    /// needs no RTT of a report it holds, all of them measured. A third of
    /// the bytes a report for a grid of one (source, E-model) pair.
    public private(set) var rtt = ContiguousArray<Double>()
    public private(set) var loss = ContiguousArray<Double>()
    public private(set) var jitter = ContiguousArray<Double>()
    /// The SDK's MOS, NaN for `null`.
    public private(set) var sdkMOS = ContiguousArray<Double>()
    /// With `init(mosFor:)`: the (source, E-model) pairs the configs use,
    /// and each report's MOS under each pair, made as reports are added in
    /// place of `rtt`, `loss`, `jitter` and `sdkMOS`, which stay empty.
    public private(set) var mosKeys: [MOSKey] = []
    /// `mosColumns[k]` belongs to `mosKeys[k]`.
    public private(set) var mosColumns: [ContiguousArray<Double>] = []
    /// Whether `loss`, `jitter` and `sdkMOS` are kept (no `mosColumns`).
    public var keepsMOSInputs: Bool { mosKeys.isEmpty }

    // Connection k: reports `reportStart[k] ..< reportStart[k + 1]`, time span
    // `[connStart[k], connEnd[k]]`.
    public private(set) var connStart = ContiguousArray<Int64>()
    public private(set) var connEnd = ContiguousArray<Int64>()
    public private(set) var reportStart = ContiguousArray<Int>([0])

    // Client c (one uid in one meeting): connections `clientConn[c] ..<
    // clientConn[c + 1]`, stalls `clientStall[c] ..< clientStall[c + 1]`.
    public private(set) var clientConn = ContiguousArray<Int>([0])
    /// Part (meeting) p: clients `partClient[p] ..< partClient[p + 1]`, so
    /// that counts can be told apart per meeting (`Tuning.partCounts`).
    public private(set) var partClient = ContiguousArray<Int>([0])
    public private(set) var clientStall = ContiguousArray<Int>([0])
    /// Stall start times, ascending within each client (as subscriber).
    public private(set) var stallStarts = ContiguousArray<Int64>()

    /// The most reports any one client has: sizes the per-client scratch space.
    public private(set) var maxClientReports = 0

    // Client c counts only inside windows `[windowFrom[w], windowTo[w])`,
    // `w` in `clientWindow[c] ..< clientWindow[c + 1]`; none: everywhere.
    // A client's part of a cohort by network (`CohortTuning`): its tier
    // machine runs over all its reports, but only the alarms, tier time and
    // stalls inside the windows count.
    public private(set) var clientWindow = ContiguousArray<Int>([0])
    public private(set) var windowFrom = ContiguousArray<Int64>()
    public private(set) var windowTo = ContiguousArray<Int64>()

    /// A stretch of time a client counts in, `[from, to)`.
    public struct Window: Sendable, Equatable {
        public var from: Int64
        public var to: Int64

        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }
    }

    /// A meeting's log, each of its clients counted everywhere (`nil`) or
    /// only inside its windows (ascending, disjoint).
    public struct Part: Sendable {
        public var log: MeetingLog
        /// One per `log.clients`.
        public var windows: [[Window]?]

        public init(log: MeetingLog, windows: [[Window]?]? = nil) {
            self.log = log
            self.windows = windows ?? Array(repeating: nil, count: log.clients.count)
        }
    }

    /// Reports added inside connections (a windowed client's, all of
    /// them): what the sweep is said to run over, those without a measured
    /// RTT included, though it holds only the others (`heldReportCount`).
    public private(set) var reportCount = 0
    /// Reports held: those of `reportCount` with a measured RTT.
    public var heldReportCount: Int { ts.count }
    /// Reports that count: inside their client's windows, if it has any
    /// (what a cohort of `tune --by` says it holds).
    public private(set) var countedReportCount = 0
    public var connectionCount: Int { connStart.count }
    public var clientCount: Int { clientConn.count - 1 }
    /// The parts (meetings) added, in order.
    public var partCount: Int { partClient.count - 1 }
    public var stallCount: Int { stallStarts.count }

    /// Flattens meetings with the same connection and subscription rules as
    /// `MeetingAnalysis`.
    public init(_ logs: [MeetingLog]) {
        self.init(parts: logs.map { Part(log: $0) })
    }

    /// Meetings whose clients may count only inside windows.
    public init(parts: [Part]) {
        for part in parts { add(part) }
    }

    /// An empty corpus, for meetings added one at a time (`add`): a fleet's
    /// logs need not all be held at once.
    public init() {}

    /// Meetings, keeping the MOS columns of `configs` (`init(mosFor:)`).
    public init(parts: [Part], mosFor configs: [TierConfig]) {
        self.init(mosFor: configs)
        for part in parts { add(part) }
    }

    /// An empty corpus that keeps, instead of the MOS inputs, the MOS
    /// columns `configs` read (`mosColumns`): only those configs, or others
    /// of the same (source, E-model) pairs, can be scored on it. No configs:
    /// the inputs are kept, as by `init()`.
    public init(mosFor configs: [TierConfig]) {
        for c in configs {
            let key = MOSKey(source: c.mos, emodel: c.emodel)
            guard !mosKeys.contains(key) else { continue }
            mosKeys.append(key)
            mosColumns.append([])
        }
    }

    /// Makes room for `reports` reports in all, so that columns grown a
    /// meeting at a time are not left with up to twice the space they use.
    public mutating func reserve(reports: Int) {
        ts.reserveCapacity(reports)
        if keepsMOSInputs {
            rtt.reserveCapacity(reports)
            loss.reserveCapacity(reports)
            jitter.reserveCapacity(reports)
            sdkMOS.reserveCapacity(reports)
        }
        for k in mosColumns.indices { mosColumns[k].reserveCapacity(reports) }
    }

    /// Grows the columns, when `reports` more would not fit, to hold them
    /// (twice the space at least, so that many small clients are not
    /// copied each time): a client of millions of reports then takes the
    /// space it needs, where appends would double past it, holding the
    /// old columns and the new at once while copying.
    private mutating func makeRoom(for reports: Int) {
        let needed = ts.count + reports
        guard needed > ts.capacity else { return }
        reserve(reports: max(needed, 2 * ts.capacity))
    }

    /// Empties the corpus for the next batch of meetings (`TuningTally`),
    /// keeping its MOS keys and, if asked, its columns' capacity.
    public mutating func removeAll(keepingCapacity keep: Bool = true) {
        for k in mosColumns.indices { mosColumns[k].removeAll(keepingCapacity: keep) }
        ts.removeAll(keepingCapacity: keep)
        rtt.removeAll(keepingCapacity: keep)
        loss.removeAll(keepingCapacity: keep)
        jitter.removeAll(keepingCapacity: keep)
        sdkMOS.removeAll(keepingCapacity: keep)
        connStart.removeAll(keepingCapacity: keep)
        connEnd.removeAll(keepingCapacity: keep)
        stallStarts.removeAll(keepingCapacity: keep)
        windowFrom.removeAll(keepingCapacity: keep)
        windowTo.removeAll(keepingCapacity: keep)
        reportStart = [0]
        clientConn = [0]
        partClient = [0]
        clientStall = [0]
        clientWindow = [0]
        maxClientReports = 0
        reportCount = 0
        countedReportCount = 0
    }

    /// Adds one meeting, after those added before: the same corpus as
    /// `init(parts:)` of them all, in that order.
    public mutating func add(_ part: Part) {
        let engine = part.log.engine
        for (i, client) in part.log.clients.enumerated() {
            add(client: client, engine: engine, windows: i < part.windows.count ? part.windows[i] : nil)
        }
        endPart()
    }

    /// Adds one client of the part being added, whose meeting's engine is
    /// `engine`; `endPart` closes the part. A meeting may thus be added a
    /// client at a time, each client's reports read in its turn.
    public mutating func add(client: ClientLog, engine: String?, windows: [Window]?) {
        // Reports held in memory are read without any failure.
        try! add(client: client, reports: ConnectedReports(client), engine: engine, windows: windows)
    }

    /// Closes the part whose clients were added since the last one closed.
    public mutating func endPart() {
        partClient.append(clientCount)
    }

    /// Whether clients were added since the last part was closed.
    public var hasOpenPart: Bool { clientCount > partClient[partClient.count - 1] }

    /// `add(client:engine:windows:)` of `client` whose reports `reports`
    /// walks (`client.reports` is not read): a stored client of millions
    /// of reports is read block by block, never held beside the columns
    /// it fills. Throws what reading the reports throws.
    public mutating func add(client: ClientLog, reports: ConnectedReports, engine: String?, windows: [Window]?) throws {
        // A CDN meeting has no quality feed: reports it logs anyway drive
        // no tier, as in `MeetingAnalysis` (its stalls stay, uncovered).
        let feed = EventCatalog.hasQualityFeed(engine: engine)
        if feed { makeRoom(for: reports.reportCount) }
        let before = ts.count
        // Reports kept per connection, and those that count (inside the
        // windows, if any), all of them read.
        var kept = [Int](repeating: 0, count: reports.spans.count)
        var added = 0, counted = 0
        if feed {
            try reports.forEachConnectedRun { c, r, k in
                added += r.count
                if let windows {
                    counted += c.ts[r].count { t in windows.contains { $0.from <= t && t < $0.to } }
                }
                let start = ts.count
                let inputs = keepsMOSInputs
                for i in r where c.rtt[i] != 0 {
                    ts.append(c.ts[i])
                    if inputs {
                        rtt.append(c.rtt[i])
                        loss.append(c.loss[i])
                        jitter.append(c.jitter[i])
                        sdkMOS.append(c.mos[i])
                    }
                }
                kept[k] += ts.count - start
                // A column at a time: a loop over the reports for each.
                for (m, key) in mosKeys.enumerated() {
                    for i in r where c.rtt[i] != 0 {
                        mosColumns[m].append(ReportMOS.mos(sdkMOS: c.mos[i], rtt: c.rtt[i], loss: c.loss[i], jitter: c.jitter[i],
                                                           source: key.source, emodel: key.emodel))
                    }
                }
            }
        }
        // Each connection's reports went in in order.
        var end = before
        for (k, span) in reports.spans.enumerated() {
            end += kept[k]
            connStart.append(span.start)
            connEnd.append(span.end)
            reportStart.append(end)
        }
        clientConn.append(connStart.count)
        maxClientReports = max(maxClientReports, ts.count - before)
        reportCount += added
        countedReportCount += windows == nil ? added : counted
        var starts: [Int64] = []
        for s in client.subscriptions(until: reports.lastTs(of: client)) { starts += s.stalls.map(\.start) }
        if let windows {
            // A stall counts where it starts.
            starts = starts.filter { t in windows.contains { $0.from <= t && t < $0.to } }
            for w in windows {
                windowFrom.append(w.from)
                windowTo.append(w.to)
            }
        }
        clientWindow.append(windowFrom.count)
        stallStarts.append(contentsOf: starts.sorted())
        clientStall.append(stallStarts.count)
    }
}

/// What a MOS column depends on: the config's MOS source and E-model.
public struct MOSKey: Hashable, Sendable {
    public var source: MOSSource
    public var emodel: EModelParams
}
