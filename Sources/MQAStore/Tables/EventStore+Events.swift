#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel

extension EventStore {
    /// Stores a client's non-report events (any order, may repeat stored
    /// ones); returns the number of duplicates dropped. `ready` as for
    /// `storeReports`.
    package func storeEvents(_ series: EventSeries, client: Int64, ready: [EventChunkRow]? = nil) throws -> Int {
        try storeSeries(series, client: client, table: .events, decode: decodeEvents,
            insert: { merged, range in try self.insert(EventStore.eventRow(merged, range, codec: &self.codec), client: client) },
            insertReady: ready.map { rows in { for row in rows { try self.insert(row, client: client) } } })
    }

    /// A stored event chunk's events.
    func decodeEvents(row: Int64, blob: UnsafeRawBufferPointer) throws -> EventSeries {
        EventSeries(block: try codec.decodeEvents(blob))
    }

    /// An event chunk row of events `range` of `s`, encoded. Pure, so that
    /// it can run off the writer's thread.
    static func eventRow(_ s: EventSeries, _ range: Range<Int>, codec: inout ChunkCodec) throws -> EventChunkRow {
        var block = s.block
        if range != 0..<s.count {
            block = EventBlock()
            block.append(s.block, range: range)
        }
        let blob: [UInt8]
        if let recent = codec.recent {
            let made = try codec.encodeSharing(block)
            recent.remember(made.blob, events: made.shared)
            blob = made.blob
        } else {
            blob = try codec.encode(block)
        }
        return EventChunkRow(
            firstTs: block.ts.first!, lastTs: block.ts.last!, count: block.count,
            kinds: block.kinds.reduce(Int64(0)) { $0 | (1 << Int64($1)) }, blob: blob)
    }

    func insert(_ row: EventChunkRow, client: Int64) throws {
        let insert = try db.cached(
            "INSERT INTO event_chunks (client_id, first_ts, last_ts, count, kinds, data) VALUES (?, ?, ?, ?, ?, ?)")
        insert.bind(1, client)
        insert.bind(2, row.firstTs)
        insert.bind(3, row.lastTs)
        insert.bind(4, row.count)
        insert.bind(5, row.kinds)
        insert.bind(6, blob: row.blob)
        try insert.run()
    }

    /// A client's non-report events in time order (equal times in input
    /// order). A damaged chunk throws, or with `onDamage` is reported there
    /// and skipped (its readable events kept).
    func events(client: Int64, meeting: String, uid: String,
                onDamage: ((StoreDamage) -> Void)? = nil) throws -> [TimedEvent] {
        var payloads = PayloadCache()
        return try events(client: client, meeting: meeting, uid: uid, payloads: &payloads, onDamage: onDamage)
    }

    /// `events(client:meeting:uid:onDamage:)`, parsing each payload text
    /// through `payloads` (shared by the clients of one meeting).
    func events(client: Int64, meeting: String, uid: String, payloads: inout PayloadCache,
                onDamage: ((StoreDamage) -> Void)? = nil) throws -> [TimedEvent] {
        let select = try db.cached(EventStore.eventChunksSQL)
        select.bind(1, client)
        var out: [TimedEvent] = []
        while try select.step() {
            try EventStore.appendEvents(of: select, to: &out, codec: &codec, payloads: &payloads,
                                        meeting: meeting, uid: uid, onDamage: onDamage)
        }
        return out
    }

    static let eventChunksSQL = "SELECT id, data FROM event_chunks WHERE client_id = ? ORDER BY first_ts, id"

    /// Appends the events of the chunk row `select` is on (id, data) to
    /// `out`. A damaged chunk throws, or with `onDamage` is reported there
    /// and skipped (its readable events kept).
    static func appendEvents(of select: Statement, to out: inout [TimedEvent], codec: inout ChunkCodec,
                             payloads: inout PayloadCache, meeting: String, uid: String,
                             onDamage: ((StoreDamage) -> Void)?) throws {
        let id = select.int64(0)
        func damaged(_ reason: String) throws {
            let damage = StoreDamage(meeting: meeting, uid: uid, place: .chunk(.events, id: id), reason: reason)
            guard let onDamage else { throw StoreError.damaged(damage) }
            onDamage(damage)
        }
        let block: SharedEventBlock
        do {
            block = try select.withBlob(1) { try codec.recent?.takeEvents($0) ?? codec.decodeSharedEvents($0) }
        } catch {
            try damaged("\(error)")
            return
        }
        // Each distinct payload is parsed once, when first met; events
        // that repeat it share its values.
        var parsed = [EventPayload?](repeating: nil, count: block.payloads.count)
        var unreadable = 0
        for i in block.ts.indices {
            let p = Int(block.payloadIndex[i])
            if parsed[p] == nil, let kind = EventKind(rawValue: block.kinds[i]), kind != .qualityReport {
                parsed[p] = payloads.payload(of: kind, canonicalJSON: block.payloads[p])
            }
            guard let payload = parsed[p] else {
                if onDamage == nil { try damaged("unreadable event \(i)") }
                unreadable += 1
                continue
            }
            out.append(TimedEvent(ts: block.ts[i], payload: payload, reportsBefore: block.reportsBefore[i]))
        }
        if unreadable > 0 { try damaged("\(unreadable) unreadable event(s) left out") }
    }

    /// A client's events chunk by chunk, in time order: memory follows the
    /// chunk, not the client. One cursor at a time, read to the end.
    func eventChunks(client: Int64, meeting: String, uid: String) throws -> EventChunkCursor {
        let select = try db.cached(EventStore.eventChunksSQL)
        select.bind(1, client)
        return EventChunkCursor(select: select, codec: codec, meeting: meeting, uid: uid)
    }

    /// Everything one meeting's clients logged, as the tier engine takes it;
    /// `nil` when the store has no such meeting.
    ///
    /// A damaged chunk throws `StoreError.damaged`; with `lenient` it is
    /// left out instead and named in the log's `damage`, so that a report
    /// can show the rest and say what is missing.
    public func meetingLog(_ meeting: String, lenient: Bool = false) throws -> MeetingLog? {
        try storedMeeting(meeting, lenient: lenient, withReports: true, withReceived: true)?.log
    }

    /// A stored meeting's log, its reports left out unless `withReports`,
    /// and, aligned with `log.clients`, each client's row id and report
    /// count (so a caller reading reports later asks the store no more).
    /// What the dumps' connections received (`MeetingLog.received`) is read
    /// only `withReceived`: the incidents use it, the summaries do not.
    func storedMeeting(_ meeting: String, lenient: Bool, withReports: Bool, withReceived: Bool = false)
        throws -> (log: MeetingLog, clientIDs: [Int64], reportCounts: [Int])? {
        let clients = try clients(meeting: meeting)
        if clients.isEmpty { return nil }
        var logs: [ClientLog] = []
        var ids: [Int64] = []
        var counts: [Int] = []
        var contextOnly: [ClientLog] = []
        var damage: [StoreDamage] = []
        let onDamage: ((StoreDamage) -> Void)? = lenient ? { damage.append($0) } : nil
        var payloads = PayloadCache()
        var titles = MeetingTitleChoice()
        for (id, uid) in clients {
            let count = try reportCount(client: id)
            let columns = withReports
                ? try reportColumns(client: id, count: count, meeting: meeting, uid: uid, onDamage: onDamage)
                : ReportColumns()
            let all = try events(client: id, meeting: meeting, uid: uid, payloads: &payloads, onDamage: onDamage)
            let context = all.filter { $0.payload.kind.isContext }
            let events = context.isEmpty ? all : all.filter { !$0.payload.kind.isContext }
            let log = ClientLog(uid: uid, events: events, reports: columns, context: context)
            if log.onlyContext && count == 0 {
                contextOnly.append(log)
            } else {
                logs.append(log)
                ids.append(id)
                counts.append(count)
                EventStore.dropUnshownTitles(of: &logs, &titles)
            }
        }
        // Tracks named after the sender's media are the sender's, where the
        // sender's dump is here too, and go by the sender's own track ids
        // (Docs/import.md, "One call, several dumps").
        let names = try publisherNames(meeting: meeting, uids: Set(clients.map(\.uid)))
        // What each connection received, in connection order, for the mesh-loss rule.
        let received = withReceived ? try receivedLoss(meeting: meeting).mapValues { $0.sorted { $0.key < $1.key }.map(\.value) } : [:]
        let log = MeetingLog(meeting: meeting, clients: logs, damage: damage, contextOnly: contextOnly, received: received)
        let resolved = log.resolvingSenders(
            publishers: names, tracks: try senderTracks(meeting: meeting), streams: try senderPublishers(meeting: meeting))
        return (resolved, ids, counts)
    }
}

extension EventStore {
    /// Titles longer than this that no report can show are let go while a
    /// meeting is read: a meeting of 150 joins, each with a distinct 1 MB
    /// title, held them all (150 MB) to show one. Shorter ones stay, so an
    /// ordinary meeting's events are read as they were logged.
    static let longestUnshownTitle = PayloadCache.longestKept

    /// Offers the last of `logs`' events that can name the meeting to
    /// `titles`, and drops the long title of each event that can no longer
    /// be chosen (`MeetingTitleChoice`), and any long `previousTitle`,
    /// which nothing reads. `MeetingLog.title` is the same without them.
    static func dropUnshownTitles(of logs: inout [ClientLog], _ titles: inout MeetingTitleChoice) {
        let c = logs.count - 1
        for (i, e) in logs[c].events.enumerated() where MeetingTitleChoice.names(e.payload.kind) {
            if let previous = e.payload.string("previousTitle"), previous.utf8.count > longestUnshownTitle {
                logs[c].events[i].payload = e.payload.dropping("previousTitle")
            }
            guard e.payload.string("title") != nil,
                  let beaten = titles.offer(e.payload.kind, ts: e.ts, at: .init(client: c, event: i)) else { continue }
            let event = logs[beaten.client].events[beaten.event]
            if let title = event.payload.string("title"), title.utf8.count > longestUnshownTitle {
                logs[beaten.client].events[beaten.event].payload = event.payload.dropping("title")
            }
        }
    }
}

extension EventPayload {
    /// This payload with field `name` absent.
    func dropping(_ name: String) -> EventPayload {
        guard let i = kind.descriptor.index(of: name) else { return self }
        var values = self.values
        values[i] = .absent
        return EventPayload(kind: kind, values: values)
    }
}

extension ReportColumns {
    /// Appends a decoded chunk, its exact decimals as doubles.
    mutating func append(_ block: SeriesBlock) {
        ts.append(contentsOf: block.ts)
        DecimalNumber.appendDoubles(of: block[.loss], to: &loss, null: 0)
        DecimalNumber.appendDoubles(of: block[.rtt], to: &rtt, null: 0)
        DecimalNumber.appendDoubles(of: block[.jitter], to: &jitter, null: 0)
        DecimalNumber.appendDoubles(of: block[.bitrate], to: &bitrate, null: 0)
        DecimalNumber.appendDoubles(of: block[.mos], to: &mos, null: .nan)
    }

    /// Appends `other`'s reports after these.
    mutating func append(contentsOf other: ReportColumns) {
        if count == 0 {
            self = other
            return
        }
        ts += other.ts
        loss += other.loss
        rtt += other.rtt
        jitter += other.jitter
        bitrate += other.bitrate
        mos += other.mos
    }
}

/// Stored payload texts parsed once each: the clients of a meeting log the
/// same speaker lists, stream states and tiers, so a meeting's reader parses
/// each text once, not once per client (on 400 files of the benchmark
/// corpus, 2,627 parses instead of 13,668). Keyed by kind and text: two
/// kinds may share a text (`{"target":"carol"}`).
struct PayloadCache: ~Copyable {
    private var texts = ByteInterner()
    /// By `texts` index; `nil` for a text that is not a valid payload.
    private var payloads: [EventPayload?] = []
    private var parser = LineParser(nowMs: .max)
    private var key: [UInt8] = []

    /// Longer texts are not all kept: keeping them all copied every payload
    /// of a meeting of 300 lines of 1 MB titles, growing to 768 MB, and
    /// `export` reads chunk by chunk, holding nothing else.
    static let longestKept = 4096
    /// The last long text of each kind and its payload: a repeat (an app
    /// that logs the same long title on every join) shares the strings
    /// parsed first, where 300 joins with one 1 MB title held 300 copies.
    /// The last only, so that distinct texts are not all held; copied into
    /// a buffer kept per kind, since retaining the block's own array made
    /// `check` of 600 distinct 480 KB titles 25 % slower (the allocator
    /// reused its memory less).
    private var lastLong: [UInt8: (text: [UInt8], payload: EventPayload?)] = [:]

    /// The payload of `kind` whose canonical JSON is `text`.
    mutating func payload(of kind: EventKind, canonicalJSON text: [UInt8]) -> EventPayload? {
        if text.count > PayloadCache.longestKept {
            if let last = lastLong[kind.rawValue], PayloadCache.same(last.text, text) { return last.payload }
            let payload = text.withUnsafeBufferPointer { parser.payload(of: kind, canonicalJSON: $0) }
            var last = lastLong.removeValue(forKey: kind.rawValue) ?? ([], nil)
            last.text.removeAll(keepingCapacity: true)
            last.text.append(contentsOf: text)
            last.payload = payload
            lastLong[kind.rawValue] = last
            return payload
        }
        key.removeAll(keepingCapacity: true)
        key.append(kind.rawValue)
        key.append(contentsOf: text)
        let index = key.withUnsafeBytes { texts.intern($0) }
        if index == payloads.count {
            payloads.append(text.withUnsafeBufferPointer { parser.payload(of: kind, canonicalJSON: $0) })
        }
        return payloads[index]
    }

    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}

/// Decodes one client's event chunks on demand (see `eventChunks`).
final class EventChunkCursor {
    private let select: Statement
    private var codec: ChunkCodec
    private var payloads = PayloadCache()
    private let meeting: String
    private let uid: String

    init(select: Statement, codec: ChunkCodec, meeting: String, uid: String) {
        self.select = select
        self.codec = codec
        self.meeting = meeting
        self.uid = uid
    }

    /// The next chunk's events, nil after the last. A damaged chunk throws
    /// `StoreError.damaged`.
    func next() throws -> [TimedEvent]? {
        var out: [TimedEvent] = []
        while out.isEmpty {
            guard try select.step() else { return nil }
            try EventStore.appendEvents(of: select, to: &out, codec: &codec, payloads: &payloads,
                                        meeting: meeting, uid: uid, onDamage: nil)
        }
        return out
    }
}
