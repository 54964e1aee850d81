import Foundation
import MQABase
import MQAModel
import MQAAnalysis


/// What `mqa check` found.
public struct StoreCheckResult: Sendable {
    /// `PRAGMA integrity_check` lines: `["ok"]` for a sound file.
    public var integrity: [String] = []
    public var reportChunks = 0
    public var eventChunks = 0
    public var reports = 0
    public var events = 0
    public var damage: [StoreDamage] = []

    public init() {}

    public var isClean: Bool { damage.isEmpty }

    public var json: JSON {
        .object([
            ("ok", .bool(isClean)),
            ("integrity", .array(integrity.map { .string($0) })),
            ("reportChunks", .int(Int64(reportChunks))), ("eventChunks", .int(Int64(eventChunks))),
            ("reports", .int(Int64(reports))), ("events", .int(Int64(events))),
            ("damaged", .array(damage.map { d in
                .object([
                    ("meeting", .string(d.meeting)), ("uid", .string(d.uid)), ("table", .string(d.table)),
                    ("chunk", .optional(d.chunk)), ("reason", .string(d.reason)),
                ])
            })),
        ])
    }
}

extension EventStore {
    /// Verifies the whole store: SQLite's own `integrity_check` and
    /// `foreign_key_check`, then every report and event chunk: checksum,
    /// decompression, decoding, and the row's `count`, `first_ts`, `last_ts`
    /// (and `kinds` for events) against the decoded data; items in time
    /// order; chunks of a client not overlapping; every stored event
    /// readable. Reads only. Damage is collected, not thrown: one bad chunk
    /// never hides another.
    public func check() throws -> StoreCheckResult {
        // One snapshot for every statement: run beside an ingest, the stale
        // flags, chunks and summary rows read one by one came from different
        // commits, and a sound store was called damaged.
        try inSnapshot { try checkInSnapshot() }
    }

    private func checkInSnapshot() throws -> StoreCheckResult {
        var result = StoreCheckResult()
        func sqliteDamage(_ reason: String) {
            result.damage.append(StoreDamage(place: .file, reason: reason))
        }
        do {
            let integrity = try db.prepare("PRAGMA integrity_check")
            while try integrity.step() { result.integrity.append(integrity.string(0) ?? "") }
        } catch {
            result.integrity.append("\(error)")
        }
        if result.integrity != ["ok"] {
            for line in result.integrity { sqliteDamage("integrity_check: \(line)") }
        }
        do {
            let fk = try db.prepare("PRAGMA foreign_key_check")
            while try fk.step() { sqliteDamage("foreign_key_check: " + EventStore.foreignKeyProblem(fk)) }
        } catch {
            sqliteDamage("foreign_key_check: \(error)")
        }
        do {
            for reason in try unexportableIDs() + unreadableReceived() { sqliteDamage(reason) }
        } catch {
            sqliteDamage("cannot read the meeting and client ids: \(error)")
        }
        do {
            for table in ChunkTable.allCases { try checkChunks(table, into: &result) }
        } catch {
            // The file is too damaged to read the chunk tables at all.
            sqliteDamage("cannot read the chunks: \(error)")
        }
        if result.isClean {
            do {
                try checkSummaries(into: &result)
            } catch {
                sqliteDamage("cannot read the summary tables: \(error)")
            }
        }
        return result
    }

    /// Meeting and client ids no event could carry (empty): an export
    /// would write lines the event log's contract rejects.
    func unexportableIDs() throws -> [String] {
        var out: [String] = []
        let meetings = try db.prepare("SELECT id FROM meetings WHERE meeting = '' ORDER BY id")
        while try meetings.step() { out.append("meetings row \(meetings.int64(0)) has an empty meeting id") }
        let clients = try db.prepare("SELECT id FROM clients WHERE uid = '' ORDER BY id")
        while try clients.step() { out.append("clients row \(clients.int64(0)) has an empty uid") }
        return out
    }

    /// Why a whole-store export would leave something out or write what
    /// does not ingest back, found without decoding a chunk: rows whose
    /// owner row is gone (an export walks meetings and their clients, so
    /// it would pass over a chunk or a connection's context of no client),
    /// and ids no event can carry. Empty for a sound store; `mqa check`
    /// tells more.
    public func exportBlockers() throws -> [String] {
        var out: [String] = []
        let fk = try db.prepare("PRAGMA foreign_key_check")
        while try fk.step() { out.append(EventStore.foreignKeyProblem(fk)) }
        return out + (try unexportableIDs()) + (try unreadableReceived())
    }

    /// `connection_received` rows whose JSON does not read: a report
    /// leaves such evidence out, but an export would drop it unseen.
    func unreadableReceived() throws -> [String] {
        guard try hasTable("connection_received") else { return [] }
        var out: [String] = []
        let s = try db.prepare("SELECT client_id, connection, received FROM connection_received ORDER BY client_id, connection")
        while try s.step() {
            let object = s.string(2).flatMap { try? ExactJSONReader.parse(Data($0.utf8)) }
            if case .success = object.map(ConnectionContext.received) { continue }
            out.append("connection_received row of client \(s.int64(0)), connection \(s.string(1) ?? "?"), does not read")
        }
        return out
    }

    /// One row of `PRAGMA foreign_key_check` in words. A table WITHOUT
    /// ROWID has no row number to give (SQLite says NULL).
    static func foreignKeyProblem(_ fk: Statement) -> String {
        let row = fk.isNull(1) ? "a row" : "row \(fk.int64(1))"
        return "\(fk.string(0) ?? "?") \(row) refers to a missing \(fk.string(2) ?? "?") row"
    }

    /// Recomputes the summary tables of every meeting that is not marked
    /// stale and compares them with the stored rows: a summary edited by
    /// hand, or left behind by a bug, would silently skew every named query.
    ///
    /// This thread reads meetings whole, in groups of at most 32 meetings
    /// and `groupItems` stored items, and compares; the group read before
    /// is recomputed on the other cores meanwhile. A bigger meeting goes
    /// alone, read client by client. Either way the rows are those ingest
    /// computes (a whole log's analysis equals the one read client by
    /// client).
    func checkSummaries(into result: inout StoreCheckResult, groupItems: Int = summaryGroupItems) throws {
        // Summaries of older rules are redone by the first mqa that writes
        // the store, as stale ones are: neither is damage.
        guard try summaryRevision() >= EventStore.summaryRevision else { return }
        let config = TierConfig()
        let sizes = try storedItemCounts()
        try forEachMeetingPage(stale: false, size: 500) { page in
            try BackgroundMap<SummaryRows?>.pipeline(
                page, maxCount: 32, maxItems: groupItems, items: { sizes[$0.meeting] ?? 0 },
                read: { m in (id: m.id, log: try storedMeeting(m.meeting, lenient: false, withReports: true, withReceived: false)?.log) },
                transform: { m in
                    m.log.map { SummaryRows(meetingID: m.id, log: $0, analysis: MeetingAnalysis.analyze($0, config: config, keepingTimelines: false)) }
                },
                alone: { m in try self.summaryRows(meetingID: m.id, meeting: m.meeting, config: config) },
                deliver: { m, expected in
                    guard let expected else { return }
                    try compareSummaries(meetingID: m.id, meeting: m.meeting, expected: expected, into: &result)
                })
        }
    }

    /// Stored reports and events a group of `checkSummaries` holds at
    /// most: ~60 bytes each as a log, so two groups in flight stay near
    /// 30 MB.
    static let summaryGroupItems = 250_000

    /// Compares stored and recomputed rows a row at a time: a meeting of
    /// 100,000 participants is never held as two arrays of rows.
    private func compareSummaries(meetingID id: Int64, meeting: String, expected: SummaryRows,
                                  into result: inout StoreCheckResult) throws {
        for table in SummaryTable.allCases {
            let select = try db.prepare("SELECT * FROM \(table.rawValue) WHERE meeting_id = ? ORDER BY rowid")
            select.bind(1, id)
            var recomputed = 0
            var stored = 0
            var first: (row: Int, column: Int, stored: SQLValue, recomputed: SQLValue)?
            try expected.forEach(table) { want in
                recomputed += 1
                guard try select.step() else { return }
                stored += 1
                guard first == nil else { return }
                for (column, v) in want.enumerated() where select.value(Int32(column)) != v {
                    first = (recomputed - 1, column, select.value(Int32(column)), v)
                    break
                }
            }
            while try select.step() { stored += 1 }
            let reason: String
            if stored != recomputed {
                reason = "\(stored) rows stored, \(recomputed) recomputed"
            } else if let first {
                reason = "row \(first.row + 1), column \(try columnName(table, first.column)): "
                    + "stored \(first.stored), recomputed \(first.recomputed)"
            } else {
                continue
            }
            result.damage.append(StoreDamage(meeting: meeting, place: .summary(table),
                                             reason: "summary does not match the data: \(reason)"))
        }
    }

    private func columnName(_ table: SummaryTable, _ index: Int) throws -> String {
        let s = try db.prepare("SELECT name FROM pragma_table_info('\(table.rawValue)') WHERE cid = ?")
        s.bind(1, index)
        return try s.step() ? s.string(0) ?? "?" : "?"
    }

    /// Every chunk of `table`, in client and time order. This thread steps
    /// SQLite and copies the rows out, about `chunkBatchBytes` at a time;
    /// the batch read before is decoded and verified on the other cores
    /// meanwhile (`verify`, a codec per worker). Only what runs across
    /// chunks, a client's overlaps, is checked here, in order.
    func checkChunks(_ table: ChunkTable, into result: inout StoreCheckResult, batchBytes: Int = chunkBatchBytes) throws {
        let events = table == .events
        let select = try db.prepare(
            """
            SELECT k.id, coalesce(m.meeting, ''), coalesce(c.uid, ''), k.client_id, k.first_ts, k.last_ts, k.count,
                   \(events ? "k.kinds" : "0"), k.data
            FROM \(table.rawValue) k LEFT JOIN clients c ON c.id = k.client_id LEFT JOIN meetings m ON m.id = c.meeting_id
            ORDER BY k.client_id, k.first_ts, k.id
            """)
        var previousClient: Int64 = -1
        var previousLast = Int64.min
        var previousChunk: Int64 = 0
        var pending: (rows: [ChunkRow], verdicts: BackgroundMap<[ChunkVerdict]>)?
        // A batch in flight is waited for however this ends.
        defer { pending?.verdicts.wait() }
        func flush() {
            guard let p = pending else { return }
            pending = nil
            for (row, verdict) in zip(p.rows, p.verdicts.results.joined()) {
                if events { result.eventChunks += 1 } else { result.reportChunks += 1 }
                if events { result.events += verdict.items } else { result.reports += verdict.items }
                if row.client != previousClient {
                    previousClient = row.client
                    previousLast = Int64.min
                }
                var reasons = verdict.reasons
                if row.firstTs < previousLast {
                    reasons.append("overlaps chunk \(previousChunk) of the same client (starts at \(row.firstTs), before \(previousLast))")
                }
                for reason in reasons {
                    result.damage.append(StoreDamage(meeting: row.meeting, uid: row.uid, place: .chunk(table, id: row.id), reason: reason))
                }
                previousLast = max(previousLast, row.lastTs)
                previousChunk = row.id
            }
        }
        var rows: [ChunkRow] = []
        var bytes = 0
        func dispatch() {
            flush()
            // A share per core and a few more, so that a slow share does
            // not leave the others idle; each share makes its own codec.
            let shares = max(1, min(rows.count, 4 * ProcessInfo.processInfo.activeProcessorCount))
            let split = (0..<shares).map { k in Array(rows[rows.count * k / shares..<rows.count * (k + 1) / shares]) }
            pending = (rows, BackgroundMap(split) { share in
                let codec = ChunkCodec()
                var parser = LineParser(nowMs: .max)
                return share.map { EventStore.verify($0, events: events, codec: codec, parser: &parser) }
            })
            rows = []
            bytes = 0
        }
        // A read that fails midway (a damaged page) leaves what was read
        // before it checked and counted, as one chunk at a time did: one
        // bad chunk never hides another.
        func step() throws -> Bool {
            do {
                return try select.step()
            } catch {
                if !rows.isEmpty { dispatch() }
                flush()
                throw error
            }
        }
        while try step() {
            let row = ChunkRow(id: select.int64(0), meeting: select.string(1) ?? "", uid: select.string(2) ?? "",
                               client: select.int64(3), firstTs: select.int64(4), lastTs: select.int64(5),
                               count: select.int(6), kindsMask: select.int64(7), data: select.blob(8))
            bytes += row.data.count
            rows.append(row)
            if bytes >= batchBytes { dispatch() }
        }
        if !rows.isEmpty { dispatch() }
        flush()
    }

    /// Chunk bytes a batch of `checkChunks` reads before handing it over.
    static let chunkBatchBytes = 4 << 20

    /// A chunk row as read for `mqa check`.
    struct ChunkRow: Sendable {
        var id: Int64
        var meeting: String
        var uid: String
        var client: Int64
        var firstTs: Int64
        var lastTs: Int64
        var count: Int
        var kindsMask: Int64
        var data: [UInt8]
    }

    /// What one chunk holds: its items, and what is wrong with it alone.
    struct ChunkVerdict: Sendable {
        var items = 0
        var reasons: [String] = []
    }

    /// Decodes one chunk and checks it against its row: the checksum and
    /// columns (by decoding), the kinds and every event's payload, the
    /// count and time range, the time order.
    static func verify(_ row: ChunkRow, events: Bool, codec: ChunkCodec, parser: inout LineParser) -> ChunkVerdict {
        var verdict = ChunkVerdict()
        // The decoded timestamps, or nil when the chunk does not decode.
        var ts: [Int64]?
        if events {
            do {
                let block = try codec.decodeEvents(row.data)
                ts = block.ts
                verdict.items = block.ts.count
                let mask = block.kinds.reduce(Int64(0)) { $0 | (1 << Int64($1 & 63)) }
                if mask != row.kindsMask { verdict.reasons.append("row says kinds \(row.kindsMask), chunk holds \(mask)") }
                var unreadable: [Int] = []
                for i in block.ts.indices {
                    let ok: Bool
                    if let kind = EventKind(rawValue: block.kinds[i]), kind != .qualityReport {
                        ok = block.withPayload(i) { parser.payload(of: kind, canonicalJSON: $0.assumingMemoryBound(to: UInt8.self)) } != nil
                    } else {
                        ok = false
                    }
                    if !ok { unreadable.append(i) }
                }
                if let first = unreadable.first {
                    verdict.reasons.append("\(unreadable.count) unreadable event(s), the first at index \(first)")
                }
            } catch {
                verdict.reasons.append("\(error)")
            }
        } else {
            do {
                let block = try codec.decode(row.data)
                ts = block.ts
                verdict.items = block.ts.count
                if block.columns.count != ReportColumn.allCases.count {
                    verdict.reasons.append("\(block.columns.count) columns, expected \(ReportColumn.allCases.count)")
                }
            } catch {
                verdict.reasons.append("\(error)")
            }
        }
        if let ts {
            if ts.count != row.count {
                verdict.reasons.append("row says \(row.count) items, chunk holds \(ts.count)")
            } else if let first = ts.first, let last = ts.last, first != row.firstTs || last != row.lastTs {
                verdict.reasons.append("row says time range \(row.firstTs)...\(row.lastTs), chunk holds \(first)...\(last)")
            } else if ts.isEmpty {
                verdict.reasons.append("empty chunk")
            }
            if zip(ts, ts.dropFirst()).contains(where: { $0 > $1 }) { verdict.reasons.append("items out of time order") }
        }
        return verdict
    }
}
