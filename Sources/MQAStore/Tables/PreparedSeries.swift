import MQABase
import MQAModel

/// A report chunk row as `INSERT` takes it: time range, count, per value
/// column the values counted (the MOS counts only those in 1–5), their
/// minimum, maximum and sum, and the encoded chunk.
package struct ReportChunkRow {
    var firstTs: Int64
    var lastTs: Int64
    var count: Int
    var blob: [UInt8]
    var stats: [(count: Int, lo: Double, hi: Double, sum: Double)] = []
}

/// An event chunk row as `INSERT` takes it: time range, count, the bit
/// set of the kinds it holds, and the encoded chunk.
package struct EventChunkRow {
    var firstTs: Int64
    var lastTs: Int64
    var count: Int
    var kinds: Int64
    var blob: [UInt8]
}

/// One client's reports and events of one input, made ready on a parsing
/// thread as the writer would store them for a client with nothing stored
/// yet: sorted, freed of repeats, chunked and encoded. Encoding was half
/// of the writer's work, and the writer was the thread everything else
/// waited for.
///
/// The writer inserts the rows when the store holds nothing they would
/// merge with (`EventStore.storePrepared`); otherwise it merges the sorted
/// series as usual. Either way the store ends up the same.
///
/// A client whose log runs on into the next input is left unencoded: the
/// writer joins its pieces (`joined`) and encodes them once, as full
/// chunks. Encoded piece by piece, each piece's chunks were deleted and
/// written again when the next piece came.
package struct PreparedSeries {
    /// The client's items before repeats were dropped.
    package var reportCount = 0
    package var eventCount = 0
    /// Earlier pieces of the client's log, joined but not yet copied
    /// together (`joined`): each sorted, free of repeats and wholly before
    /// the piece after it, so that joining them is appending. `reports` and
    /// `events` come after the last of them.
    private var earlierPieces: [(reports: ReportSeries, events: EventSeries)] = []
    /// Sorted, without the repeats (counted in `...Duplicates`).
    var reports = ReportSeries()
    var reportDuplicates = 0
    var reportRows: [ReportChunkRow] = []
    var events = EventSeries()
    var eventDuplicates = 0
    var eventRows: [EventChunkRow] = []
    /// Whether the rows were made; otherwise the writer encodes the series.
    package private(set) var isEncoded = false
    /// The parsing thread saw the client's log go on in the next input.
    package var continues = false

    /// Sorts, drops repeats and, when `encode`, encodes the client's
    /// `reports` and `events`, both in input order; each event appended
    /// with the count of reports logged before it (`placedAmongReports`).
    package init(reports raw: ReportSeries, events rawEvents: EventSeries, codec: inout ChunkCodec, encode: Bool = true) throws {
        reportCount = raw.count
        eventCount = rawEvents.count
        let sortedReports = raw.sortedByTime()
        (reports, reportDuplicates) = ReportSeries.dropRepeats(sortedReports)
        (events, eventDuplicates) = EventSeries.dropRepeats(rawEvents.placedAmongReports(logged: raw, sortedReports: sortedReports))
        if encode { try self.encode(codec: &codec) }
    }

    /// Chunks and encodes the series, as the writer would for a client
    /// with nothing stored.
    package mutating func encode(codec: inout ChunkCodec) throws {
        guard !isEncoded else { return }
        concatenatePieces()
        reportRows = try reports.chunkRanges().map { try EventStore.reportRow(reports, $0, codec: &codec) }
        eventRows = try events.chunkRanges().map { try EventStore.eventRow(events, $0, codec: &codec) }
        isEncoded = true
    }

    private init() {}

    /// Items held, repeats dropped.
    package var items: Int {
        earlierPieces.reduce(reports.count + events.count) { $0 + $1.reports.count + $1.events.count }
    }

    /// The events' payload bytes held, repeats dropped.
    package var payloadBytes: Int {
        earlierPieces.reduce(events.payloadByteCount) { $0 + $1.events.payloadByteCount }
    }

    /// Copies the earlier pieces and this one together, once.
    mutating func concatenatePieces() {
        guard !earlierPieces.isEmpty else { return }
        var r = ReportSeries()
        var e = EventSeries()
        let totalReports = earlierPieces.reduce(reports.count) { $0 + $1.reports.count }
        let totalEvents = earlierPieces.reduce(events.count) { $0 + $1.events.count }
        r.reserve(count: totalReports)
        e.reserve(count: totalEvents, payloadBytes: payloadBytes)
        for piece in earlierPieces + [(reports, events)] {
            r.append(piece.reports, range: 0..<piece.reports.count)
            e.append(piece.events, range: 0..<piece.events.count)
        }
        (reports, events) = (r, e)
        earlierPieces = []
    }

    /// The time of the last report and of the last event, if any.
    private var lastTimes: (reports: Int64?, events: Int64?) {
        var last = (reports: reports.count > 0 ? reports.ts(reports.count - 1) : nil,
                    events: events.count > 0 ? events.ts(events.count - 1) : nil)
        for piece in earlierPieces.reversed() where last.reports == nil || last.events == nil {
            if last.reports == nil, piece.reports.count > 0 { last.reports = piece.reports.ts(piece.reports.count - 1) }
            if last.events == nil, piece.events.count > 0 { last.events = piece.events.ts(piece.events.count - 1) }
        }
        return last
    }

    /// `earlier`, the same client's piece before, joined with this piece
    /// (neither encoded) as storing this piece after `earlier` would merge
    /// them: at equal times the earlier items first, a repeat of one of
    /// them dropped and counted here. The counts are this piece's alone.
    ///
    /// A piece that starts after `earlier` ends (a log's next file, the
    /// usual case) is only listed after it, and the pieces are copied
    /// together once, when encoded or stored. Copied at each join, a log of
    /// n pieces was copied n - 1 times, and each time in full: the writer
    /// keeps the piece held back (`Ingester.carriedBeforeInput`) to put
    /// back if the input fails, so the join could never grow it in place.
    package func joined(after earlier: PreparedSeries) -> PreparedSeries {
        precondition(!isEncoded && !earlier.isEncoded, "joining encoded pieces")
        // This piece is a parsing thread's, fresh: pieces listed before it
        // would be dropped below.
        precondition(earlierPieces.isEmpty, "joining a joined piece after another")
        var out = PreparedSeries()
        out.reportCount = reportCount
        out.eventCount = eventCount
        out.continues = continues
        let last = earlier.lastTimes
        // Also no event in a millisecond of an earlier report: its place
        // would count those reports too (`EventSeries.placed(after:)`).
        if PreparedSeries.isAfter(reports, last.reports) && PreparedSeries.isAfter(events, last.events)
            && PreparedSeries.isAfter(events, last.reports) {
            // No time in common, so no repeat across the pieces either.
            out.earlierPieces = earlier.earlierPieces + [(earlier.reports, earlier.events)]
            (out.reports, out.reportDuplicates) = (reports, reportDuplicates)
            (out.events, out.eventDuplicates) = (events, eventDuplicates)
            return out
        }
        var earlier = earlier
        earlier.concatenatePieces()
        let r = ReportSeries.merge(stored: earlier.reports, new: reports)
        out.reports = r.merged
        out.reportDuplicates = reportDuplicates + r.duplicates
        let e = EventSeries.merge(stored: earlier.events, new: events.placed(after: earlier.reports, own: reports) ?? events)
        out.events = e.merged
        out.eventDuplicates = eventDuplicates + e.duplicates
        return out
    }

    /// Whether `series` starts after `last` (or either has no item).
    private static func isAfter<S: MergeableSeries>(_ series: S, _ last: Int64?) -> Bool {
        guard let last, series.count > 0 else { return true }
        return series.ts(0) > last
    }

    /// Repeats dropped, in total (reports, events).
    package var duplicates: (reports: Int, events: Int) { (reportDuplicates, eventDuplicates) }
}

extension EventStore {
    /// Stores a client's prepared series: its rows as they are when no
    /// stored chunk is to be merged with them, else through the merge.
    /// Returns the duplicates dropped (reports, events).
    package func storePrepared(_ p: PreparedSeries, client: Int64) throws -> (reports: Int, events: Int) {
        var p = p
        p.concatenatePieces()
        // Placed after the stored reports of their millisecond, the events'
        // encoded rows no longer hold: they are encoded again.
        let placed = try placedAfterStoredReports(p.events, own: p.reports, client: client)
        let events = placed ?? p.events
        let eventRows = p.isEncoded && placed == nil ? p.eventRows : nil
        return (p.reportDuplicates + (try storeReports(p.reports, client: client, ready: p.isEncoded ? p.reportRows : nil)),
         p.eventDuplicates + (try storeEvents(events, client: client, ready: eventRows)))
    }

    /// New events (sorted, placed among `own`, their input's reports)
    /// placed after the client's stored reports of their millisecond,
    /// which were logged before them (`EventSeries.placed(after:own:)`);
    /// nil when none shares a millisecond with a stored report (a log's
    /// next piece starts after the last). `own` may be in input order and
    /// hold repeats. Called before the input's own reports are stored.
    package func placedAfterStoredReports(_ events: EventSeries, own: ReportSeries, client: Int64) throws -> EventSeries? {
        guard events.count > 0 else { return nil }
        let select = try db.cached(
            "SELECT id, count, first_ts, last_ts FROM report_chunks WHERE client_id = ? AND last_ts >= ? AND first_ts <= ? ORDER BY first_ts, id")
        select.bind(1, client)
        select.bind(2, events.ts(0))
        select.bind(3, events.ts(events.count - 1))
        defer { select.reset() }
        var places: [ChunkPlace] = []
        while try select.step() {
            places.append(ChunkPlace(id: select.int64(0), count: select.int(1), firstTs: select.int64(2), lastTs: select.int64(3)))
        }
        guard !places.isEmpty else { return nil }
        var stored = ReportSeries()
        for place in places {
            let chunk = try readChunk(table: .reports, place, decode: decodeReports)
            stored.append(chunk, range: 0..<chunk.count)
        }
        return events.placed(after: stored, own: ReportSeries.dropRepeats(own.sortedByTime()).merged)
    }

    private static let anyChunkSQL = ChunkTable.allCases.map { "SELECT 1 FROM \($0.rawValue) WHERE client_id = ? LIMIT 1" }

    /// Whether `client` has any chunk stored, of reports or events.
    package func hasChunks(client: Int64) throws -> Bool {
        for sql in EventStore.anyChunkSQL {
            let select = try db.cached(sql)
            select.bind(1, client)
            defer { select.reset() }
            if try select.step() { return true }
        }
        return false
    }
}
