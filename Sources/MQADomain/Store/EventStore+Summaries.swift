import MQAStore

extension EventStore {
    /// Marks the meeting of `client` as needing its summaries recomputed.
    func markStale(client: Int64) throws {
        let update = try db.cached("UPDATE meetings SET stale = 1 WHERE id = (SELECT meeting_id FROM clients WHERE id = ?)")
        update.bind(1, client)
        try update.run()
    }

    /// Recomputes the summary tables of every meeting that changed since
    /// they were last computed, under the default tier config. Returns how
    /// many meetings were summarized. Each batch of meetings commits on its
    /// own: a kill leaves the rest marked stale for the next run.
    @discardableResult
    public func refreshSummaries(progress: ((Int, Int) -> Void)? = nil) throws -> Int {
        let count = try db.prepare("SELECT count(*) FROM meetings WHERE stale = 1")
        let total = try count.step() ? count.int(0) : 0
        count.reset()  // an open statement would pin a snapshot and the WAL with it
        let config = TierConfig()
        var done = 0
        // A page of stale meetings at a time, each page one transaction that
        // also clears their flags: memory stays bounded with millions of
        // meetings, and a kill leaves only unfinished pages stale.
        let page = try db.cached("SELECT id, meeting FROM meetings WHERE stale = 1 AND id > ? ORDER BY id LIMIT 50")
        var after: Int64 = -1
        while true {
            page.reset()
            page.bind(1, after)
            var batch: [(Int64, String)] = []
            while try page.step() { batch.append((page.int64(0), page.string(1) ?? "")) }
            if batch.isEmpty { break }
            after = batch.last!.0
            try db.transaction {
                for (id, meeting) in batch {
                    if let log = try meetingLog(meeting) {
                        try writeSummary(meetingID: id, log: log, analysis: MeetingAnalysis.analyze(log, config: config))
                    }
                    done += 1
                }
            }
            progress?(done, total)
        }
        return done
    }

    private func writeSummary(meetingID: Int64, log: MeetingLog, analysis a: MeetingAnalysis) throws {
        for table in ["meeting_summary", "participant_summary", "track_summary"] {
            let delete = try db.cached("DELETE FROM \(table) WHERE meeting_id = ?")
            delete.bind(1, meetingID)
            try delete.run()
        }
        let meeting = try db.cached(
            """
            INSERT INTO meeting_summary (meeting_id, title, engine, start_ts, end_ts, participants, warm_reports,
              stalls, stalled_ms, low_tier_ms, abnormal_disconnects, issues) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        meeting.bind(1, meetingID)
        meeting.bind(2, log.title)
        meeting.bind(3, a.engine)
        if let span = log.span {
            meeting.bind(4, span.first)
            meeting.bind(5, span.last)
        }
        meeting.bind(6, log.clients.count)
        meeting.bind(7, a.participants.reduce(0) { $0 + $1.warmReports })
        meeting.bind(8, a.subscriptions.reduce(0) { $0 + $1.stallCount })
        meeting.bind(9, a.subscriptions.reduce(Int64(0)) { $0 + $1.stalledMs })
        meeting.bind(10, a.isCDN ? 0 : a.participants.reduce(Int64(0)) { $0 + $1.tierMs[.poor] + $1.tierMs[.bad] })
        meeting.bind(11, a.participants.reduce(0) { $0 + $1.disconnects.filter { $0.error != nil }.count })
        meeting.bind(12, JSON.array(a.issues.map { .string($0.code.rawValue) }).rendered())
        try meeting.run()

        let participant = try db.cached(
            """
            INSERT INTO participant_summary VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
              ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for p in a.participants {
            participant.reset()
            var values: [SQLValue] = [.int(meetingID), .text(p.uid), .int(Int64(p.connections)),
                                      .int(Int64(p.warmReports)), .int(Int64(p.coldReports))]
            func real(_ v: Double?) -> SQLValue { v.map { .double($0) } ?? .null }
            values += [real(p.mos?.mean), real(p.mos?.p5), real(p.mos?.p50), real(p.mos?.p95)]
            values += [real(p.lossPct?.mean), real(p.lossPct?.p95), real(p.rttMs?.mean), real(p.rttMs?.p95)]
            values += [real(p.jitterMs?.mean), real(p.jitterMs?.p95), real(p.bitrateKbps?.mean), real(p.bitrateKbps?.p5)]
            values += Tier.reportOrder.map { .int(p.tierMs[$0]) }
            values += [.int(Int64(p.tierChanges)), .int(Int64(p.flaps)), real(p.sdkTierAgreement), .int(Int64(p.disconnects.count))]
            for (i, v) in values.enumerated() { participant.bind(Int32(i + 1), v) }
            try participant.run()
        }

        let track = try db.cached("INSERT INTO track_summary VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for s in a.subscriptions {
            track.reset()
            let underGood = s.stalls.filter { $0.tier == .excellent || $0.tier == .good }.count
            let values: [SQLValue] = [.int(meetingID), .text(s.subscriber), .text(s.publisher), .text(s.track),
                                      s.kind.map { .text($0) } ?? .null, .int(s.subscribeTs), .int(s.endTs),
                                      s.firstFrameTs.map { .int($0) } ?? .null, .int(Int64(s.stallCount)),
                                      .int(s.stalledMs), .double(s.stallRatio), .int(Int64(underGood)),
                                      .int(Int64(s.stalls.filter(\.open).count))]
            for (i, v) in values.enumerated() { track.bind(Int32(i + 1), v) }
            try track.run()
        }
        let fresh = try db.cached("UPDATE meetings SET stale = 0 WHERE id = ?")
        fresh.bind(1, meetingID)
        try fresh.run()
    }
}
