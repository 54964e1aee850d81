import MQABase
import MQAModel

/// Everything the tuning sweep reads, flattened once from the logs into
/// contiguous columns so that each config is one tight pass over memory.
///
/// Only what a config can change is left to the sweep: the corpus holds the
/// reports inside connections (reports outside count nowhere), connection
/// bounds, and each client's stall start times (stalls do not depend on the
/// tier config).
public struct TuningCorpus: Sendable, Equatable {
    // Reports of every connection, concatenated in client, connection, ts order.
    public private(set) var ts = ContiguousArray<Int64>()
    public private(set) var rtt = ContiguousArray<Double>()
    public private(set) var loss = ContiguousArray<Double>()
    public private(set) var jitter = ContiguousArray<Double>()
    /// The SDK's MOS, NaN for `null`.
    public private(set) var sdkMOS = ContiguousArray<Double>()
    /// With `init(mosFor:)`: the (source, E-model) pairs the configs use,
    /// and each report's MOS under each pair, made as reports are added in
    /// place of `loss`, `jitter` and `sdkMOS`, which stay empty (`rtt`
    /// stays: the cold-start rule reads it). Half the bytes a report for a
    /// grid of one such pair.
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

    /// Reports the sweep runs over (a windowed client's, all of them).
    public var reportCount: Int { ts.count }
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
        rtt.reserveCapacity(reports)
        if keepsMOSInputs {
            loss.reserveCapacity(reports)
            jitter.reserveCapacity(reports)
            sdkMOS.reserveCapacity(reports)
        }
        for k in mosColumns.indices { mosColumns[k].reserveCapacity(reports) }
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
        let before = ts.count
        if feed {
            try reports.forEachConnectedRun { c, r, _ in
                ts.append(contentsOf: c.ts[r])
                rtt.append(contentsOf: c.rtt[r])
                if keepsMOSInputs {
                    loss.append(contentsOf: c.loss[r])
                    jitter.append(contentsOf: c.jitter[r])
                    sdkMOS.append(contentsOf: c.mos[r])
                }
                for (k, key) in mosKeys.enumerated() {
                    for i in r {
                        mosColumns[k].append(ReportMOS.mos(sdkMOS: c.mos[i], rtt: c.rtt[i], loss: c.loss[i], jitter: c.jitter[i],
                                                           source: key.source, emodel: key.emodel))
                    }
                }
            }
        }
        // Each connection's reports went in whole, in order.
        var end = before
        for span in reports.spans {
            if feed { end += span.reports.count }
            connStart.append(span.start)
            connEnd.append(span.end)
            reportStart.append(end)
        }
        clientConn.append(connStart.count)
        maxClientReports = max(maxClientReports, ts.count - before)
        var starts: [Int64] = []
        for s in client.subscriptions(until: reports.lastTs(of: client)) { starts += s.stalls.map(\.start) }
        let added = ts[before...]
        countedReportCount += windows.map { w in added.count { t in w.contains { $0.from <= t && t < $0.to } } } ?? added.count
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
