import MQABase
import MQAModel
import MQAStore

// The writer side: a prepared input's batches moved into per-client
// buffers, its rejects recorded, its progress claimed.
extension Ingester {
    /// Where the writer stands with the input it is storing.
    struct InputWrite {
        let input: PreparedInput
        var fileID: Int64
        var summary: IngestSummary
        /// This input's progress as last written to its row (committed or
        /// not): another process that took the file over changed it.
        var writtenLines: Int
        /// The last batch written since this input's last checkpoint, if any.
        var unsaved: ParsedBatch? = nil
        /// Standard input cannot be resumed (nor read again): its batches'
        /// (last line, prefix digest), to find a killed run of the same
        /// content once it is done.
        var boundaries: [Int: String] = [:]
        var lastProgress = 0
        /// How the file changed while it was read, if it did.
        var changed: String? = nil

        init(_ input: PreparedInput) {
            self.input = input
            fileID = input.fileID
            summary = input.summary
            writtenLines = input.resumeAfter
        }
    }

    /// Stores a prepared input's batches as they come, committing every
    /// `commitEvery` lines with the file's progress.
    func write(_ input: PreparedInput) throws -> IngestSummary {
        var w = InputWrite(input)
        carriedBeforeInput = carried
        encodingBeforeInput = encoding
        do {
            try beginInput()
            loop: while true {
                let item = try input.queue.take(idleAfter: idleCommitAfter, whileWaiting: { try idle(&w) })
                if !transactions.isOpen { try beginInput() }
                switch item {
                case .batch(let batch):
                    try take(batch, &w)
                case .format(let format):
                    w.summary.formats[format.rawValue, default: .init()].files += 1
                case .skip:
                    try transactions.endInput()
                    return skipped(repeating: input.comparedID)
                case .restart:
                    try restart(&w)
                case .end(let digest, let changedHow):
                    try claim(fileID: w.fileID, written: w.writtenLines)
                    w.changed = changedHow
                    if let earlier = try finish(fileID: w.fileID, path: input.path, digest: digest, changed: changedHow != nil,
                                                boundaries: w.boundaries, summary: &w.summary) {
                        return skipped(repeating: earlier)
                    }
                    break loop
                case .failed(let error):
                    throw error
                }
            }
        } catch {
            input.queue.cancel()
            if try undoFailedInput(path: input.path, error) { return skipped(repeating: nil) }
            // What the input's own checkpoints stored stays: told as such.
            if w.fileID != 0 && w.summary.rejected > 0 { try? tellStoredRejects(fileID: w.fileID, path: input.path) }
            throw error
        }
        // Told once the input is written, outside the input's savepoint: a
        // failure to read them back cannot undo what was stored.
        if w.summary.rejected > 0 { try tellStoredRejects(fileID: w.fileID, path: input.path) }
        onProgress?(input.size ?? 0, input.size, input.path)
        if let changed = w.changed {
            // Stored and counted, but not the file as it is now: a failure
            // for this input (exit 1), never a silent success.
            failedInputs += 1
            onInputError(InputError.changedWhileRead(input.path, changed))
        }
        return w.summary
    }

    /// Opens the transaction if none is, and the input's savepoint.
    private func beginInput() throws {
        try beginIfNeeded()
        try transactions.beginInput()
    }

    /// One parsed batch of the input: buffered, and committed with the
    /// file's progress when enough is buffered.
    private func take(_ batch: ParsedBatch, _ w: inout InputWrite) throws {
        let input = w.input
        try write(batch, fileID: w.fileID, path: input.path, summary: &w.summary)
        if input.path == "-" || !input.isRegularFile { w.boundaries[batch.lastLine] = batch.prefixDigest }
        w.unsaved = batch
        linesSinceCommit += batch.lines
        if !batch.holdsCommit
            && (linesSinceCommit >= commitEvery || buffered >= 2 * commitEvery
                || bufferedPayloadBytes >= Ingester.maxBufferedPayloadBytes
                || series.count + preparedSeries.count >= Ingester.maxBufferedClients)
        {
            try commitCheckpoint(&w, after: batch)
            try beginInput()
        }
        try summaries.storeReady(into: store)
        if let onProgress, batch.lastLine - w.lastProgress >= 16_384 {
            w.lastProgress = batch.lastLine
            onProgress(batch.bytesRead, input.size, input.path)
        }
    }

    /// No batch is ready: commit what the transaction holds and let go of
    /// the write lock while the input is awaited. Not while a batch holds
    /// the commit (a dump's connections, valid only as a whole), and, for a
    /// regular file (read at the disk's pace, so never for long), not while
    /// its own batches are unsaved: a file that fails half-way is then
    /// undone whole, whatever the machine's load.
    private func idle(_ w: inout InputWrite) throws {
        guard transactions.isOpen, w.unsaved?.holdsCommit != true, w.unsaved == nil || !w.input.isRegularFile else { return }
        if let batch = w.unsaved { try commitCheckpoint(&w, after: batch) } else { try commit() }
    }

    /// Stores the buffered events and the file's progress through `batch`,
    /// and commits (ending the savepoint too): a kill after it resumes there.
    private func commitCheckpoint(_ w: inout InputWrite, after batch: ParsedBatch) throws {
        try claim(fileID: w.fileID, written: w.writtenLines)
        try checkpoint(fileID: w.fileID, linesDone: batch.lastLine, prefix: batch.prefixDigest, status: .partial, summary: &w.summary)
        w.writtenLines = batch.lastLine
        w.unsaved = nil
        try commit()
        inputCommitted = w.summary
    }

    /// The input is not the content its record was compared with: read
    /// afresh under a new `files` row, the old one superseded.
    private func restart(_ w: inout InputWrite) throws {
        if w.fileID != 0 { try store.setFileStatus(w.fileID, .superseded) }
        w.fileID = try store.insertFile(path: w.input.path, emptyDigest: Ingester.emptyDigest)
        let formats = w.summary.formats  // which format this input is: still true
        w.summary = IngestSummary()
        w.summary.files = 1
        w.summary.formats = formats
        w.writtenLines = 0
        w.unsaved = nil
        inputCommitted = nil
    }

    /// The input's end: its `files` row written once, with the hash.
    /// Returns the record of the same content ingested before under
    /// another name, when that is what this run found (this input's row
    /// then goes), else nil.
    func finish(fileID: Int64, path: String, digest: String, changed: Bool, boundaries: [Int: String],
                summary: inout IngestSummary) throws -> Int64? {
        // The row is written once, below, with the hash: a second UPDATE
        // per input was a tenth of the writer's fixed cost per input.
        try checkpoint(fileID: fileID, summary: &summary)
        if let earlier = try store.finishedFile(hash: digest, except: fileID) {
            // This run found only duplicates. Keep the older record (and
            // its rejects) alone, and say nothing of rejects this run did
            // not keep.
            try store.forgetFile(fileID)
            try endInput()
            return earlier
        }
        // A killed run of this same stream (its record partial, its prefix
        // one of this run's `boundaries`) is this run's first part: its
        // record and rejects go, or `query rejects` would list those lines
        // twice. Its events were stored by it, and this run found each
        // again as a duplicate: counted as the killed run's, the record is
        // a clean run's.
        for partial in try boundaries.isEmpty ? [] : store.partialFiles(path: path) where partial.id != fileID {
            guard let prefix = partial.prefixHash, boundaries[partial.linesDone] == prefix else { continue }
            try store.forgetFile(partial.id)
            summary.events += partial.summary.events
            summary.reports += partial.summary.reports
            summary.duplicates -= partial.summary.events
        }
        // A finished row keeps no prefix digest: its hash is the whole
        // content's, and 71 bytes a row (with ~100 KB inputs, 3 % of a
        // store) held it a second time.
        try store.updateFile(
            fileID, status: changed ? .changed : .done, linesDone: Int(Int64.max), prefixHash: nil, hash: digest,
            summary: summary)
        finishedSinceCommit.insert(fileID)
        try endInput()
        return nil
    }

    /// Releases a written input's savepoint; the input counts toward the
    /// next commit.
    func endInput() throws {
        try transactions.endInput()
        inputsSinceCommit += 1
    }

    /// Undoes a failed input: its buffers, what it joined or stored of the
    /// series held back, and its savepoint. True when the failure is that
    /// another process took the content over (the input is then skipped);
    /// throws when the input cannot be undone alone.
    func undoFailedInput(path: String, _ error: Error) throws -> Bool {
        clearBuffers()
        // What the input joined or stored of the series held back is
        // undone with it (unless a commit stored it before).
        carried = carriedBeforeInput
        encoding = encodingBeforeInput
        store.forgetCachedIDs()
        forgetStaleMarks()
        // Undo this input only: the inputs before it in the shared
        // transaction stay (SQLite may have rolled back the whole
        // transaction itself, on a full disk: then nothing is open, and
        // the error, not an input's, stops the ingest).
        if transactions.isOpen && !transactions.undoInput() {
            // The inputs before this one in the transaction go with it:
            // never go on as if they were stored.
            transactions.rollback()
            throw StoreError.inconsistent("could not undo the failed input \(path) alone (\(error)); nothing since the last commit was stored")
        }
        // Another process took this content over between two of our
        // commits and went further: it finishes the file. What we
        // committed before is a prefix of what it commits.
        return error is IngestedElsewhere
    }

    /// The summary of an input skipped as content already stored: that of
    /// the `files` record `id` (nil: committed by another process). Notes
    /// whether that record is committed, so the input is stored whole.
    func skipped(repeating id: Int64?) -> IngestSummary {
        skipIsCommitted = id.map { !finishedSinceCommit.contains($0) } ?? true
        var skipped = IngestSummary()
        skipped.files = 1
        skipped.skippedFiles = 1
        return skipped
    }

    /// Moves a parsed batch into the per-client buffers and records its
    /// rejects (writer thread).
    func write(_ batch: ParsedBatch, fileID: Int64, path: String, summary: inout IngestSummary) throws {
        if let c = batch.conversion {
            var counts = summary.formats[c.format.rawValue, default: .init()]
            counts.connections += c.connections
            counts.samples += c.samples
            counts.events += c.events
            summary.formats[c.format.rawValue] = counts
            summary.skippedConnections += c.skipped
            summary.connectionContexts += c.contexts
            for context in c.contexts { try store.putConnectionContext(context) }
        }
        summary.lines += batch.lines
        summary.ignored += batch.ignored
        // A context line only after an event of its client (earlier in the
        // batch, or stored: an earlier batch or input): an export writes it
        // after the client's first. Alone it would make a meeting of
        // nothing. Looked up before this batch's clients are made.
        var contextsKept: [ConnectionContext] = []
        for c in batch.contexts {
            if try c.known || store.hasClient(meeting: c.context.meeting ?? "", uid: c.context.uid ?? "") {
                contextsKept.append(c.context)
                continue
            }
            summary.ignored -= 1
            summary.rejected += 1
            try recordReject(raw: c.raw, size: c.size, number: c.line,
                             reason: "mqa_connection_context: no event of this meeting and uid before it", fileID: fileID, path: path)
        }
        summary.contextLines += contextsKept.count
        let ids = try batch.clients.map { try store.clientID(meeting: $0.meeting, uid: $0.uid) }
        for context in contextsKept {
            // Its names change how the meeting reads (who sent a track):
            // the summaries are redone, even when its events were all
            // stored already (an export of a newer build ingested again).
            if let client = try store.putConnectionContext(context) { summaries.touched(meeting: try markStale(client: client)) }
        }
        buffered += batch.items
        bufferedPayloadBytes += batch.payloadByteCount
        for reject in batch.rejects {
            summary.rejected += 1
            try recordReject(raw: reject.raw, size: reject.size, number: reject.line, reason: reject.reason, fileID: fileID, path: path)
        }
        if let prepared = batch.prepared {
            for (k, p) in prepared.enumerated() { preparedSeries.append((ids[k], p)) }
            return
        }
        let slots = ids.map { seriesSlot(client: $0) }
        // The buffers may hold earlier batches: an event's count of reports
        // logged before it starts from theirs.
        let earlier = slots.map { UInt32(series[$0].reports.count) }
        batch.forEachRun(
            reports: { series[slots[$0]].reports.append($1, ts: batch.reportTs, values: batch.reportValues) },
            events: {
                series[slots[$0]].events.append(ts: batch.eventTs[$1], kind: batch.eventKind[$1], payload: batch.payloadBytes[$2],
                                                reportsLogged: earlier[$0] + batch.eventReportsLogged[$1])
            })
    }

    /// The index of `client`'s buffers in `series`, created when new.
    func seriesSlot(client: Int64) -> Int {
        if let index = seriesIndex[client] { return index }
        seriesIndex[client] = series.count
        series.append((ReportSeries(), EventSeries()))
        seriesClients.append(client)
        return series.count - 1
    }


    func recordReject(raw: [UInt8], size: Int, number: Int, reason: String, fileID: Int64, path: String) throws {
        if rawStored.file != fileID { rawStored = (fileID, 0) }
        let keep = rawStored.bytes + raw.count <= rawBudgetPerInput
        let text = try raw.withUnsafeBytes { try store.rejectText(reason: reason, raw: $0, size: size, keepRaw: keep) }
        if text.new && keep { rawStored.bytes += raw.count }
        try store.insertReject(file: fileID, line: number, text: text.id)
    }

    /// Tells `onReject` the rejects the store holds for `fileID`.
    func tellStoredRejects(fileID: Int64, path: String) throws {
        try store.forEachReject(file: fileID) { line, reason in onReject(RejectedLine(file: path, line: line, reason: reason)) }
    }

    /// Another ingest of the same content committed progress since our last
    /// commit (two `mqa ingest` of one file at once).
    struct IngestedElsewhere: Error {}

    /// Checks, inside the open transaction, that the file's progress is still
    /// the one this ingest last wrote; otherwise another process is
    /// ingesting the same content and this one stands down (its open batch
    /// rolled back), so that no line is stored or rejected twice.
    func claim(fileID: Int64, written: Int) throws {
        if try store.linesDone(file: fileID) != written { throw IngestedElsewhere() }
    }
}
