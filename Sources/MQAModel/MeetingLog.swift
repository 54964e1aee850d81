import MQABase

/// One client's quality reports as columns, sorted by `ts` (equal `ts` keep
/// input order). Columns, not report structs, so that a tuning sweep runs
/// over flat arrays.
public struct ReportColumns: Sendable, Equatable {
    public var ts: [Int64] = []
    public var loss: [Double] = []
    public var rtt: [Double] = []
    public var jitter: [Double] = []
    public var bitrate: [Double] = []
    /// The SDK's MOS; `Double.nan` stands for `null`.
    public var mos: [Double] = []

    public init() {}

    public var count: Int { ts.count }

    /// Reserves room for `n` reports in every column.
    public mutating func reserve(_ n: Int) {
        ts.reserveCapacity(n)
        loss.reserveCapacity(n)
        rtt.reserveCapacity(n)
        jitter.reserveCapacity(n)
        bitrate.reserveCapacity(n)
        mos.reserveCapacity(n)
    }

    public mutating func append(ts: Int64, _ r: QualityReport) {
        self.ts.append(ts)
        loss.append(r.loss)
        rtt.append(r.rtt)
        jitter.append(r.jitter)
        bitrate.append(r.bitrate)
        mos.append(r.mos ?? .nan)
    }

    public func report(at i: Int) -> QualityReport {
        QualityReport(
            loss: loss[i], rtt: rtt[i], jitter: jitter[i], bitrate: bitrate[i],
            mos: mos[i].isNaN ? nil : mos[i])
    }
}

/// Everything one client (`meeting`, `uid`) logged in one meeting.
///
/// Order at equal `ts` between a report and another event: input order.
/// Reports are kept as columns apart from the events, so each event carries
/// its place among its millisecond's reports (`TimedEvent.reportsBefore`);
/// `ClientLog.eventComesFirst` applies it, and falls back to the event's
/// kind where the place is unknown.
public struct ClientLog: Sendable, Equatable {
    public var uid: String
    /// Every event except quality reports and context events, in `ts` order
    /// (equal `ts` keep input order).
    public var events: [TimedEvent]
    public var reports: ReportColumns
    /// The 1.1 context events (`EventKind.isContext`), in `ts` order. Kept
    /// apart so that no connection, subscription, tier or tuning figure can
    /// see them: a log with and without them gives the same numbers.
    public var context: [TimedEvent]

    public init(uid: String, events: [TimedEvent] = [], reports: ReportColumns = ReportColumns(),
                context: [TimedEvent] = []) {
        self.uid = uid
        self.events = events
        self.reports = reports
        self.context = context
    }

    /// True when the client logged only context events (for instance a
    /// device change and then nothing): it is no participant of the figures.
    public var onlyContext: Bool { events.isEmpty && reports.count == 0 && !context.isEmpty }

    /// The client's first and last event time, reports included; `nil` when
    /// the client logged nothing.
    public var span: (first: Int64, last: Int64)? {
        let lo = [events.first?.ts, reports.ts.first].compactMap { $0 }.min()
        let hi = [events.last?.ts, reports.ts.last].compactMap { $0 }.max()
        guard let lo, let hi else { return nil }
        return (lo, hi)
    }
}

/// All clients of one meeting, sorted by `uid`.
public struct MeetingLog: Sendable, Equatable {
    public var meeting: String
    public var clients: [ClientLog]
    /// Stored chunks that could not be read and are left out (a lenient
    /// read of a damaged store); empty normally.
    public var damage: [StoreDamage]
    /// Clients that logged only context events (say a device change, then
    /// no join): not participants, so not in `clients`, which every figure
    /// reads; kept for the report's context.
    public var contextOnly: [ClientLog]
    /// What each imported connection received and lost, by uid (stats
    /// dumps only; empty for event logs): the mesh-loss evidence of
    /// `IncidentFinder`, never a figure.
    public var received: [String: [ReceivedLoss]]

    public init(meeting: String, clients: [ClientLog], damage: [StoreDamage] = [], contextOnly: [ClientLog] = [],
                received: [String: [ReceivedLoss]] = [:]) {
        self.meeting = meeting
        self.clients = clients
        self.damage = damage
        self.contextOnly = contextOnly
        self.received = received
    }

    /// The engine of the first `meeting_join` (by time; at equal times,
    /// the first uid's) on an engine with a quality feed (`sfu`, `p2p`),
    /// else of the first join (`cdn`); `nil` when no client logged a join.
    ///
    /// A meeting anyone joined with a quality feed has one: a webinar's CDN
    /// audience joining before its SFU panel made the whole meeting "cdn",
    /// and the panel's quality reports, its tiers and incidents, vanished
    /// behind "no quality data".
    public var engine: String? {
        var first: (ts: Int64, engine: String)?, fed: (ts: Int64, engine: String)?
        for client in clients {
            for e in client.events where e.payload.kind == .meetingJoin {
                guard let engine = e.payload.string("engine") else { continue }
                if first == nil || e.ts < first!.ts { first = (e.ts, engine) }
                if EventCatalog.hasQualityFeed(engine: engine) && (fed == nil || e.ts < fed!.ts) { fed = (e.ts, engine) }
            }
        }
        return fed?.engine ?? first?.engine
    }
}
