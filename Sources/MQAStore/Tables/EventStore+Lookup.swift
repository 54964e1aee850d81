import MQABase
import MQAModel

/// Finding meetings by when they started, when they ran, and who was in
/// them (`--since`/`--until`, `mqa meetings --at T --uid U`).
///
/// A meeting's start and end are `MeetingHeader`'s, once: the first and
/// last event of any participant (a client that joined), quality reports
/// included; the stored summary holds them (`meeting_summary.start_ts`,
/// `end_ts`), and every listing shows that start. A client that logged
/// only context events (a device change, then no join) is no participant
/// and moves neither end.
extension EventStore {
    /// Meeting ids, sorted, whose start lies in [since, until) (an open end
    /// when nil).
    public func meetings(startingIn window: (since: Int64?, until: Int64?)) throws -> [String] {
        if window.since == nil && window.until == nil { return try meetings() }
        let since = window.since ?? Int64.min, until = window.until ?? Int64.max
        return try meetingSpans().filter { m in m.span.map { $0.start >= since && $0.start < until } ?? false }.map(\.meeting)
    }

    /// Meeting ids, sorted, that were running at the instant `at` gives
    /// for each meeting's span (one instant for all, or a time of day on
    /// each one's date): start ≤ T ≤ end. The end is the last event's
    /// time, when the meeting still ran, and `report meeting --at` counts
    /// it as inside too: a one-event meeting is running at its instant.
    public func meetings(runningAt at: (_ span: (start: Int64, end: Int64)) -> Int64) throws -> [String] {
        try meetingSpans().filter { m in m.span.map { span in let t = at(span); return span.start <= t && t <= span.end } ?? false }
            .map(\.meeting)
    }

    /// Every meeting's (start, end), sorted by meeting id; nil when nothing
    /// was logged. Read from the summary; a meeting whose summary is stale
    /// (a killed ingest, a read-only store) or missing gets its span from
    /// its log, so a filter never disagrees with what a report shows.
    public func meetingSpans() throws -> [(meeting: String, span: (start: Int64, end: Int64)?)] {
        let s = try db.prepare(
            """
            SELECT m.meeting, m.stale != 0 OR s.meeting_id IS NULL, s.start_ts, s.end_ts
            FROM meetings m LEFT JOIN meeting_summary s ON s.meeting_id = m.id ORDER BY m.meeting
            """)
        var rows: [(meeting: String, stale: Bool, span: (start: Int64, end: Int64)?)] = []
        while try s.step() {
            let span: (start: Int64, end: Int64)? = s.isNull(2) || s.isNull(3) ? nil : (s.int64(2), s.int64(3))
            rows.append((s.string(0) ?? "", s.int(1) != 0, span))
        }
        s.reset()
        return try rows.map { row in
            guard row.stale else { return (row.meeting, row.span) }
            let header = try meetingLog(row.meeting, lenient: true).map(MeetingHeader.init)
            guard let start = header?.start, let end = header?.end else { return (row.meeting, nil) }
            return (row.meeting, (start, end))
        }
    }

    /// How many quality reports and other events each meeting stores, by
    /// meeting id (from the chunks' counts; no chunk is decoded): what
    /// reading a meeting whole will hold, so a batch can size its groups.
    public func storedItemCounts() throws -> [String: Int] {
        let s = try db.prepare(
            """
            SELECT m.meeting, (SELECT COALESCE(SUM(r.count), 0) FROM clients c JOIN report_chunks r ON r.client_id = c.id
                               WHERE c.meeting_id = m.id)
                            + (SELECT COALESCE(SUM(e.count), 0) FROM clients c JOIN event_chunks e ON e.client_id = c.id
                               WHERE c.meeting_id = m.id)
            FROM meetings m
            """)
        var out: [String: Int] = [:]
        while try s.step() { out[s.string(0) ?? ""] = s.int(1) }
        s.reset()
        return out
    }

    /// The quality reports stored for `meeting`, from the chunk rows
    /// (nothing decoded); 0 for a meeting the store does not have.
    public func storedReportCount(meeting: String) throws -> Int {
        let s = try db.cached(
            """
            SELECT COALESCE(SUM(r.count), 0) FROM meetings m JOIN clients c ON c.meeting_id = m.id
            JOIN report_chunks r ON r.client_id = c.id WHERE m.meeting = ?
            """)
        defer { s.reset() }
        s.bind(1, meeting)
        return try s.step() ? s.int(0) : 0
    }

    /// Each client's last quality report time in `meeting`, by uid, from
    /// the chunk rows (nothing decoded); clients without reports are absent.
    public func lastReportTimes(meeting: String) throws -> [String: Int64] {
        let s = try db.cached(
            """
            SELECT c.uid, max(r.last_ts) FROM meetings m JOIN clients c ON c.meeting_id = m.id
            JOIN report_chunks r ON r.client_id = c.id WHERE m.meeting = ? GROUP BY c.id
            """)
        defer { s.reset() }
        s.bind(1, meeting)
        var out: [String: Int64] = [:]
        while try s.step() { out[s.string(0) ?? ""] = s.int64(1) }
        return out
    }

    /// The meetings, sorted, in which a client with exactly this uid took
    /// part (`resolveUid(_:meeting: nil)` turns a prefix into one).
    /// With `participantsOnly`, the meetings whose summaries list it as a
    /// participant (callers refresh stale summaries first).
    public func meetings(withUid uid: String, participantsOnly: Bool = false) throws -> [String] {
        let table = participantsOnly ? "participant_summary" : "clients"
        let s = try db.prepare(
            "SELECT DISTINCT m.meeting FROM \(table) c JOIN meetings m ON m.id = c.meeting_id WHERE c.uid = ? ORDER BY m.meeting")
        s.bind(1, uid)
        var out: [String] = []
        while try s.step() { out.append(s.string(0) ?? "") }
        return out
    }
}
