import Foundation
import MQABase
import MQAModel
import MQAAnalysis

extension EventStore {
    /// Marks the meeting of `client` as needing its summaries recomputed,
    /// with `stamp` (a value no earlier commit used, never 0 or 1): rows
    /// computed from a snapshot before this commit carry another stamp and
    /// are not stored. Returns the meeting's row id.
    @discardableResult
    package func markStale(client: Int64, stamp: Int64) throws -> Int64 {
        let update = try db.cached(
            "UPDATE meetings SET stale = ? WHERE id = (SELECT meeting_id FROM clients WHERE id = ?) RETURNING id")
        update.bind(1, stamp)
        update.bind(2, client)
        guard let id = try update.firstInt64() else { throw StoreError.inconsistent("client \(client) has no meeting") }
        return id
    }

    /// Marks `meeting` (a row id) as needing its summaries recomputed, as
    /// `markStale(client:stamp:)` does for a client's meeting.
    package func markStale(meeting: Int64, stamp: Int64) throws {
        let update = try db.cached("UPDATE meetings SET stale = ? WHERE id = ?")
        update.bind(1, stamp)
        update.bind(2, meeting)
        try update.run()
    }

    /// Recomputes the summary tables of every meeting that changed since
    /// they were last computed, under the default tier config, on as many
    /// worker threads as there are cores (this thread writes). Returns how
    /// many meetings were summarized. Commits every 200 meetings: a kill
    /// leaves the rest marked stale for the next run.
    @discardableResult
    public func refreshSummaries(progress: ((Int, Int) -> Void)? = nil) throws -> Int {
        // The chunks an ingest kept for its summaries (`RecentChunks`):
        // this pass is the last to want them.
        defer { codec.recent = nil }
        let count = try db.prepare("SELECT count(*) FROM meetings WHERE stale != 0")
        let total = try count.step() ? count.int(0) : 0
        count.reset()  // an open statement would pin a snapshot and the WAL with it
        if total == 0 { return 0 }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let workers = total > 1 && db.path != ":memory:"
            ? try SummaryWorkers(path: db.path, count: min(cores, total), capacity: 4 * SummaryWorkers.meetingsPerTake * cores,
                                 recent: codec.recent) : nil
        defer { workers?.close() }
        let config = TierConfig()
        var done = 0
        var sinceCommit = 0
        // Stale meetings are listed a page at a time (memory stays bounded
        // with millions of them) and kept flowing to the workers across
        // pages: waiting for each page to finish left the workers idle
        // while this thread wrote.
        var page: [Int64] = []
        var next = 0
        var after: Int64 = -1
        func nextMeeting() throws -> Int64? {
            if next == page.count {
                page = try meetingPage(stale: true, after: after, limit: 500).map(\.id)
                next = 0
                guard let last = page.last else { return nil }
                after = last
            }
            next += 1
            return page[next - 1]
        }
        try db.beginImmediate()
        do {
            func stored(_ n: Int) throws {
                done += n
                sinceCommit += n
                if sinceCommit >= 200 {
                    try db.commit()
                    progress?(done, total)
                    sinceCommit = 0
                    try db.beginImmediate()
                }
            }
            if let workers {
                var inFlight = 0
                var more = true
                while true {
                    while more && !workers.isFull {
                        guard let id = try nextMeeting() else { more = false; break }
                        guard workers.offer(id) else { throw StoreError.inconsistent("summary workers stopped") }
                        inFlight += 1
                    }
                    if inFlight == 0 { break }
                    let results = workers.takeSome()
                    for result in results { try storeSummary(result.get()) }
                    inFlight -= results.count
                    try stored(results.count)
                }
            } else {
                while let id = try nextMeeting() {
                    try storeSummary(computeSummary(meetingID: id, config: config))
                    try stored(1)
                }
            }
            try db.commit()
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
        progress?(done, total)
        return done
    }

    /// The summary rows of one meeting, computed in one read transaction
    /// with the stamp they hold for. Runs on a worker's own connection.
    func computeSummary(meetingID: Int64, config: TierConfig) throws -> ComputedSummary {
        let inTransaction = !db.isAutocommit
        if !inTransaction { try db.execute("BEGIN") }
        defer { if !inTransaction { try? db.commit() } }
        let select = try db.cached("SELECT meeting, stale FROM meetings WHERE id = ?")
        select.bind(1, meetingID)
        guard try select.step() else { return ComputedSummary(meetingID: meetingID, stamp: 0, rows: nil) }
        let (meeting, stamp) = (select.string(0) ?? "", select.int64(1))
        select.reset()
        var summary = ComputedSummary(meetingID: meetingID, stamp: stamp, rows: nil)
        if stamp != 0 { summary.rows = try summaryRows(meetingID: meetingID, meeting: meeting, config: config) }
        return summary
    }

    /// A stored meeting's summary rows under `config`, recomputed from its
    /// chunks; `nil` when the store has no such meeting.
    func summaryRows(meetingID: Int64, meeting: String, config: TierConfig) throws -> SummaryRows? {
        guard let (log, analysis) = try analyzeMeeting(meeting, config: config, keepingTimelines: false) else { return nil }
        return SummaryRows(meetingID: meetingID, log: log, analysis: analysis)
    }

    /// The summary rows of several meetings, computed in one read
    /// transaction (a worker's); each meeting's failure is its own. Stops
    /// early, before a meeting, once `stop` says so (those left stay stale).
    func computeSummaries(meetingIDs: [Int64], config: TierConfig, stop: () -> Bool = { false }) -> [Result<ComputedSummary, Error>] {
        inSnapshot {
            var results: [Result<ComputedSummary, Error>] = []
            for id in meetingIDs {
                if stop() { break }
                results.append(Result { try computeSummary(meetingID: id, config: config) })
            }
            return results
        }
    }

    /// Writes computed rows, when the meeting still has the stamp they were
    /// computed for, and marks it fresh. Returns whether it wrote them.
    @discardableResult
    package func storeSummary(_ summary: ComputedSummary) throws -> Bool {
        guard let rows = summary.rows else { return false }
        let check = try db.cached("SELECT stale FROM meetings WHERE id = ?")
        check.bind(1, summary.meetingID)
        guard try check.firstInt64() == summary.stamp else { return false }
        try writeSummary(meetingID: summary.meetingID, rows: rows)
        return true
    }

    /// Hands `body` the meetings whose `stale` flag is `stale`, `size` at a
    /// time in id order, so that millions of meetings are never listed at
    /// once. The page's statement is done before `body` runs: it pins no
    /// snapshot while `body` writes.
    func forEachMeetingPage(stale: Bool, size: Int, _ body: ([(id: Int64, meeting: String)]) throws -> Void) throws {
        var after: Int64 = -1
        while true {
            let page = try meetingPage(stale: stale, after: after, limit: size)
            guard let last = page.last else { return }
            after = last.id
            try body(page)
        }
    }

    /// Up to `limit` meetings after row id `after`, in id order, whose
    /// `stale` flag is `stale`; the statement is reset before it returns.
    private func meetingPage(stale: Bool, after: Int64, limit: Int) throws -> [(id: Int64, meeting: String)] {
        let select = try db.cached("SELECT id, meeting FROM meetings WHERE (stale != 0) = ? AND id > ? ORDER BY id LIMIT ?")
        select.bind(1, stale ? 1 : 0)
        select.bind(2, after)
        select.bind(3, limit)
        var page: [(id: Int64, meeting: String)] = []
        while try select.step() { page.append((select.int64(0), select.string(1) ?? "")) }
        select.reset()
        return page
    }

    private func writeSummary(meetingID: Int64, rows: SummaryRows) throws {
        for table in SummaryTable.allCases {
            let (delete, insert) = try summaryStatements(table)
            delete.reset()
            delete.bind(1, meetingID)
            try delete.run()
            try rows.forEach(table) { row in
                insert.reset()
                for (i, v) in row.enumerated() { insert.bind(Int32(i + 1), v) }
                try insert.run()
            }
        }
        let fresh = try db.cached("UPDATE meetings SET stale = 0 WHERE id = ?")
        fresh.bind(1, meetingID)
        try fresh.run()
    }

    private func summaryStatements(_ table: SummaryTable) throws -> (delete: Statement, insert: Statement) {
        if let made = summaryStatements[table] { return made }
        let columns = try db.prepare("SELECT count(*) FROM pragma_table_info('\(table.rawValue)')")
        let width = try columns.firstInt64() ?? 0
        let made = (delete: try db.prepare("DELETE FROM \(table.rawValue) WHERE meeting_id = ?"),
                    insert: try db.prepare("INSERT INTO \(table.rawValue) VALUES (\(Array(repeating: "?", count: Int(width)).joined(separator: ", ")))"))
        summaryStatements[table] = made
        return made
    }
}


/// One meeting's stored summary row, as `mqa meetings` lists it.
public struct MeetingSummaryRow: Sendable {
    public var header: MeetingHeader
    public var stalledMs: Int64
    public var lowTierMs: Int64
    public var abnormalDisconnects: Int
}

extension MeetingSummaryRow {
    /// The score of the stored summary (default tier config).
    public var fleetScore: FleetScore {
        FleetScore(stalledMs: stalledMs, lowTierMs: lowTierMs, abnormalDisconnects: abnormalDisconnects)
    }
}

extension EventStore {
    /// Every meeting's stored summary (meetings without one, stale and
    /// never summarised, are left out).
    public func meetingSummaries() throws -> [MeetingSummaryRow] {
        let s = try db.prepare(
            """
            SELECT m.meeting, s.title, s.engine, s.start_ts, s.end_ts, s.participants, s.stalled_ms, s.low_tier_ms,
                   s.abnormal_disconnects
            FROM meetings m JOIN meeting_summary s ON s.meeting_id = m.id
            """)
        var rows: [MeetingSummaryRow] = []
        while try s.step() {
            let header = MeetingHeader(meeting: s.string(0) ?? "", title: s.string(1), engine: s.string(2),
                                       start: s.isNull(3) ? nil : s.int64(3), end: s.isNull(4) ? nil : s.int64(4), participants: s.int(5))
            rows.append(MeetingSummaryRow(
                header: header,
                stalledMs: s.int64(6), lowTierMs: s.int64(7), abnormalDisconnects: s.int(8)))
        }
        return rows
    }
}

extension EventStore {
    /// The revision of the rules the summary tables are computed by. A
    /// fix that changes what a summary row holds raises it, so that stores
    /// summarized before have their summaries redone (`summary_revision`):
    /// - 1: the summaries before the table existed.
    /// - 2 (2026-12-05): a stored column's leading values of exponent 1
    ///   read as logged, not a tenth of them; "pauses are the rule" counts
    ///   gaps between reports only; client fields up to the last report.
    /// - 3 (2026-12-05): a CDN meeting's quality reports, where a client
    ///   logs them anyway, drive no tier.
    /// - 4 (2026-12-07): a meeting anyone joined with a quality feed is not
    ///   a CDN meeting, whoever joined first (`MeetingLog.engine`).
    static let summaryRevision = 4

    /// The revision the store's summaries were computed by (1 when the
    /// store has no record of it: it predates the table).
    func summaryRevision() throws -> Int {
        let exists = try db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'summary_revision'")
        guard try exists.step() else { return 1 }
        let s = try db.prepare("SELECT revision FROM summary_revision WHERE id = 1")
        return try s.step() ? s.int(0) : 1
    }

    /// Marks every meeting stale when the summaries were computed by older
    /// rules than this build's, and records this build's: the ingest, or a
    /// reading command's refresh (`refreshStaleSummaries`), redoes them.
    /// A store created here records it with no meeting to mark.
    func redoSummariesOfOlderRules() throws {
        guard try summaryRevision() < EventStore.summaryRevision else { return }
        try db.transaction {
            try db.execute("UPDATE meetings SET stale = 1 WHERE stale = 0")
            try db.execute("INSERT OR REPLACE INTO summary_revision (id, revision) VALUES (1, \(EventStore.summaryRevision))")
        }
    }
}
