import MQABase
import MQAModel
import MQAAnalysis

extension EventStore {
    /// Every summarised meeting whose start lies in `[since, until)` (open
    /// ends when nil) with its participants' cohort figures, in meeting id
    /// order: what `mqa report cohorts`, `compare` and `trends` group.
    ///
    /// Read from the summary tables (default tier config) and, for the
    /// client fields and abnormal disconnects, the event chunks that hold
    /// a `meeting_join`, a `disconnect` or a `network_change`, parsing only
    /// those events: no report chunk is decoded, except a client's whose
    /// network or other client field changed, which is analysed again to
    /// split its figures by that field (`CohortParticipant.split`; only by
    /// the fields in `splitting`: by the others such clients stay whole).
    /// With every field, equal to `CohortMeeting(log:)` of each meeting
    /// under the default config. A damaged event chunk is
    /// passed to `onDamage` and skipped (its client keeps what other
    /// chunks say).
    public func cohortMeetings(startingIn window: (since: Int64?, until: Int64?) = (nil, nil),
                               splitting: [CohortField] = CohortField.allCases,
                               onDamage: (StoreDamage) -> Void = { _ in }) throws -> [CohortMeeting] {
        var meetings: [CohortMeeting] = []
        var index: [Int64: Int] = [:]
        var engines: [String?] = []
        let heads = try db.prepare(
            """
            SELECT m.id, m.meeting, s.engine, s.start_ts FROM meetings m
            JOIN meeting_summary s ON s.meeting_id = m.id ORDER BY m.meeting
            """)
        while try heads.step() {
            let start: Int64? = heads.isNull(3) ? nil : heads.int64(3)
            if window.since != nil || window.until != nil {
                guard let start else { continue }
                if let since = window.since, start < since { continue }
                if let until = window.until, start >= until { continue }
            }
            index[heads.int64(0)] = meetings.count
            meetings.append(CohortMeeting(meeting: heads.string(1) ?? "", start: start, participants: []))
            engines.append(heads.string(2))
        }
        if meetings.isEmpty { return [] }

        // Participants, in (meeting, uid) order as the analysis has them.
        var slot: [Int: [String: Int]] = [:]
        let people = try db.prepare(
            """
            SELECT meeting_id, uid, mos_p50, excellent_ms, good_ms, fair_ms, poor_ms, bad_ms
            FROM participant_summary ORDER BY meeting_id, uid
            """)
        while try people.step() {
            guard let m = index[people.int64(0)] else { continue }
            let engine = engines[m]
            let cdn = !EventCatalog.hasQualityFeed(engine: engine)
            let uid = people.string(1) ?? ""
            let known = (3...7).reduce(Int64(0)) { $0 + people.int64(Int32($1)) }
            let low = people.int64(6) + people.int64(7)
            slot[m, default: [:]][uid] = meetings[m].participants.count
            meetings[m].participants.append(CohortParticipant(
                uid: uid, engine: engine, client: .init(), watchedMs: 0, stalledMs: 0,
                lowTierMs: cdn ? 0 : low, measuredMs: cdn ? 0 : known,
                mosP50: people.isNull(2) ? nil : people.double(2), abnormalDisconnects: 0, firstFrameMs: []))
        }
        let tracks = try db.prepare(
            """
            SELECT meeting_id, subscriber, kind, subscribe_ts, end_ts, first_frame_ts, stalled_ms
            FROM track_summary ORDER BY rowid
            """)
        while try tracks.step() {
            guard let m = index[tracks.int64(0)], let i = slot[m]?[tracks.string(1) ?? ""] else { continue }
            meetings[m].participants[i].add(
                subscribeTs: tracks.int64(3), endTs: tracks.int64(4), firstFrameTs: tracks.isNull(5) ? nil : tracks.int64(5),
                stalledMs: tracks.int64(6), kind: tracks.string(2))
        }
        // Joins and disconnects: only chunks that hold one are read, and
        // only those events' payloads are parsed.
        let wanted = [EventKind.meetingJoin, .disconnect, .networkChange].reduce(Int64(0)) { $0 | Int64(1) << Int64($1.rawValue) }
        let chunks = try db.prepare(
            """
            SELECT c.meeting_id, c.uid, e.id, e.data, c.id FROM event_chunks e JOIN clients c ON c.id = e.client_id
            WHERE e.kinds & ?1 != 0 ORDER BY e.client_id, e.first_ts, e.id
            """)
        chunks.bind(1, wanted)
        // Each client's last report, from the chunk rows (nothing
        // decoded): the client fields are those that held for its figures.
        var lastReport: [Int: [String: Int64]] = [:]
        let lasts = try db.prepare(
            """
            SELECT c.meeting_id, c.uid, max(r.last_ts) FROM report_chunks r JOIN clients c ON c.id = r.client_id
            GROUP BY r.client_id
            """)
        while try lasts.step() {
            guard let m = index[lasts.int64(0)] else { continue }
            lastReport[m, default: [:]][lasts.string(1) ?? ""] = lasts.int64(2)
        }
        var joins: [Int: [Int: [(ts: Int64, payload: EventPayload)]]] = [:]
        var networkChanges: [Int: [Int: [(ts: Int64, payload: EventPayload)]]] = [:]
        var clientIDs: [Int: [Int: Int64]] = [:]
        var parser = LineParser(nowMs: .max)
        // Damage already told: the split below reads such a chunk again.
        var reported: [StoreDamage] = []
        while try chunks.step() {
            guard let m = index[chunks.int64(0)], let uid = chunks.string(1), let i = slot[m]?[uid] else { continue }
            let block: SharedEventBlock
            do {
                block = try chunks.withBlob(3) { try codec.decodeSharedEvents($0) }
            } catch {
                let damage = StoreDamage(meeting: meetings[m].meeting, uid: uid, place: .chunk(.events, id: chunks.int64(2)),
                                         reason: "\(error)")
                reported.append(damage)
                onDamage(damage)
                continue
            }
            for k in block.ts.indices {
                let kind = EventKind(rawValue: block.kinds[k])
                guard kind == .meetingJoin || kind == .disconnect || kind == .networkChange, let kind else { continue }
                let p = Int(block.payloadIndex[k])
                guard let payload = block.payloads[p].withUnsafeBufferPointer({ parser.payload(of: kind, canonicalJSON: $0) })
                else { continue }
                clientIDs[m, default: [:]][i] = chunks.int64(4)
                if kind == .networkChange {
                    networkChanges[m, default: [:]][i, default: []].append((block.ts[k], payload))
                }
                if kind == .meetingJoin {
                    joins[m, default: [:]][i, default: []].append((block.ts[k], payload))
                } else if kind == .disconnect, payload.string("error") != nil {
                    meetings[m].participants[i].abnormalDisconnects += 1
                }
            }
        }
        for (m, people) in joins {
            for (i, list) in people {
                let uid = meetings[m].participants[i].uid
                meetings[m].participants[i].client = ParticipantContext.ClientInfo(joins: list, lastReport: lastReport[m]?[uid])
            }
        }
        // Clients whose network or other client field changed: their
        // figures split by it (only by the fields asked for: the split
        // reanalyses them).
        let fields = CohortField.allCases.filter { $0.changesInCall && splitting.contains($0) }
        for (m, people) in clientIDs.sorted(by: { $0.key < $1.key }) where !fields.isEmpty {
            for (i, client) in people.sorted(by: { $0.key < $1.key }) {
                let timelines = fields.compactMap { field -> (field: CohortField, timeline: ClientFieldTimeline)? in
                    let timeline = ClientFieldTimeline(marks: ClientFieldTimeline.marks(
                        field: field, joins: joins[m]?[i] ?? [], networkChanges: networkChanges[m]?[i] ?? []))
                    return timeline.changes ? (field, timeline) : nil
                }
                guard !timelines.isEmpty else { continue }
                let meeting = meetings[m].meeting, uid = meetings[m].participants[i].uid
                var found: [StoreDamage] = []
                let note: (StoreDamage) -> Void = { found.append($0) }
                let events = try self.events(client: client, meeting: meeting, uid: uid, onDamage: note)
                    .filter { !$0.payload.kind.isContext }
                let reports = try reportColumns(client: client, count: try reportCount(client: client),
                                                meeting: meeting, uid: uid, onDamage: note)
                // A damaged client keeps its whole figures (from the summaries).
                guard found.isEmpty else {
                    for damage in found where !reported.contains(damage) { onDamage(damage) }
                    continue
                }
                try meetings[m].participants[i].split(
                    by: timelines, client: ClientInput(uid: uid, events: events, reports: ReportBlocks(reports)),
                    cdn: !EventCatalog.hasQualityFeed(engine: engines[m]))
            }
        }
        return meetings
    }

    /// `CohortMeeting(log:config:)` of a stored meeting, read client by
    /// client (`analyzeMeetingForRereading`): the reports of a client
    /// whose field changed are read again for its split, and each client's
    /// fields are read up to its last report (from the chunk rows). A
    /// client of more than `limit` reports is decoded chunk by chunk.
    /// `nil` when the store has no such meeting; a damaged chunk throws
    /// `StoreError.damaged`.
    public func cohortMeeting(_ meeting: String, config: TierConfig,
                              holdingUpTo limit: Int = EventStore.heldReportLimit) throws -> CohortMeeting? {
        guard let (log, analysis, reports) = try analyzeMeetingForRereading(
            meeting, config: config, holdingUpTo: limit, keepingTimelines: false, withReceived: false)
        else { return nil }
        let lastReports = try lastReportTimes(meeting: meeting)
        let clients = Dictionary(log.clients.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        return try CohortMeeting(
            analysis: analysis,
            clientInfo: { uid in clients[uid].map { ParticipantContext.ClientInfo($0, lastReport: lastReports[uid]) } },
            log: log, reports: { try reports.blocks($0, holdingUpTo: limit) })
    }
}
