import MQAStore

// Checkpoints: the buffered series stored in client order, pieces of one
// client's log joined across inputs, and the file's progress recorded.
extension Ingester {
    /// Writes the buffered reports and the file's progress, inside the open
    /// transaction, so a commit always holds a whole prefix of the file.
    /// Without `linesDone` the progress is left to the caller to record.
    func checkpoint(
        fileID: Int64, linesDone: Int? = nil, prefix: String = "", status: FileStatus = .partial, summary: inout IngestSummary
    ) throws {
        // Clients in id order, those of the writer's buffers and those made
        // ready on a parsing thread alike (a client in both, which one
        // input cannot give, would be stored twice over, merged).
        var order = seriesClients.indices.map { (client: seriesClients[$0], buffer: $0, prepared: -1) }
        order += preparedSeries.indices.map { (client: preparedSeries[$0].client, buffer: -1, prepared: $0) }
        order.sort { ($0.client, $0.prepared) < ($1.client, $1.prepared) }
        // The series held back from the input before joins this input's
        // piece of the same client, or is stored first.
        if let held = carried,
           let k = preparedSeries.firstIndex(where: { $0.client == held.client && !$0.series.isEncoded }) {
            preparedSeries[k].series = preparedSeries[k].series.joined(after: held.series)
            carried = nil
            piecesJoined += 1
        }
        try storeCarried()
        try storeEncoded(all: false)
        for entry in order {
            let client = entry.client
            try storeEncoded(client: client)
            summaries.touched(meeting: try markStale(client: client))
            let reports: Int, events: Int, reportDuplicates: Int, eventDuplicates: Int
            if entry.prepared >= 0, case let prepared = preparedSeries[entry.prepared].series,
               prepared.continues && !prepared.isEncoded && prepared.items <= Ingester.maxCarried,
               prepared.payloadBytes <= Ingester.maxCarriedPayloadBytes,
               try !store.hasChunks(client: client)
            {
                // Its log goes on in the next input: held back, and counted
                // here as storing it would count it (nothing is stored for
                // the client, so only its own repeats are dropped).
                (reports, events) = (prepared.reportCount, prepared.eventCount)
                (reportDuplicates, eventDuplicates) = prepared.duplicates
                carried = (client, prepared)
                piecesHeld += 1
            } else if entry.buffer >= 0 {
                let buffer = series[entry.buffer]
                (reports, events) = (buffer.reports.count, buffer.events.count)
                let placed = buffer.events.placedAmongReports(logged: buffer.reports)
                let events = try store.placedAfterStoredReports(placed, own: buffer.reports, client: client) ?? placed
                reportDuplicates = try store.storeReports(buffer.reports, client: client)
                eventDuplicates = try store.storeEvents(events, client: client)
            } else {
                let prepared = preparedSeries[entry.prepared].series
                (reports, events) = (prepared.reportCount, prepared.eventCount)
                if let encoder, !prepared.isEncoded, try !store.hasChunks(client: client) {
                    // Joined pieces: encoded off the writer, and inserted as
                    // they are (nothing stored to merge with, so only their
                    // own repeats were dropped, counted as storing counts).
                    (reportDuplicates, eventDuplicates) = prepared.duplicates
                    encoding.append((client, encoder.encode(prepared)))
                    seriesEncodedAside += 1
                } else {
                    (reportDuplicates, eventDuplicates) = try store.storePrepared(prepared, client: client)
                }
            }
            summary.duplicates += reportDuplicates + eventDuplicates
            summary.events += reports + events - reportDuplicates - eventDuplicates
            summary.reports += reports - reportDuplicates
        }
        clearBuffers()
        if let linesDone {
            try store.updateFile(fileID, status: status, linesDone: linesDone, prefixHash: prefix, summary: summary)
        }
    }

    /// Stores the series held back, if any. Its items were counted when
    /// held, and nothing was stored for its client meanwhile, so nothing
    /// it holds is a repeat.
    func storeCarried() throws {
        guard let held = carried else { return }
        _ = try store.storePrepared(held.series, client: held.client)
        carried = nil
    }

    /// Inserts the series `encoding` holds, in order: those encoded by now,
    /// or with `all` every one, waiting for the encoder.
    func storeEncoded(all: Bool) throws {
        while let first = encoding.first, all || first.job.isDone {
            _ = try store.storePrepared(try first.job.wait(), client: first.client)
            encoding.removeFirst()
        }
    }

    /// Inserts `client`'s series being encoded, if any.
    func storeEncoded(client: Int64) throws {
        guard let k = encoding.firstIndex(where: { $0.client == client }) else { return }
        _ = try store.storePrepared(try encoding[k].job.wait(), client: client)
        encoding.remove(at: k)
    }

    func clearBuffers() {
        series.removeAll()
        seriesClients.removeAll()
        preparedSeries.removeAll()
        seriesIndex.removeAll()
        buffered = 0
        bufferedPayloadBytes = 0
    }
}
