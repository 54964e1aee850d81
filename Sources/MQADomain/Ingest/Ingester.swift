#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQAStore

/// Reads event logs into the store: validates every line, keeps the good
/// ones, records the bad ones, drops duplicates, and commits in batches so
/// that a killed process leaves a consistent store that a re-run completes.
public final class Ingester {
    public let store: EventStore
    /// Times more than a day after this are rejected.
    private let nowMs: Int64
    /// Lines per transaction. Each commit also records how far the file got,
    /// so a re-run after a kill resumes there.
    public var commitEvery = 100_000
    /// A commit also comes once this many clients have buffered events: a
    /// log of many tiny meetings would otherwise hold a buffer per client
    /// for a whole window.
    static let maxBufferedClients = 4096

    /// Called for every rejected line (the CLI prints the first 20).
    public var onReject: (RejectedLine) -> Void = { _ in }
    /// Called now and then with (bytes read of this input, its size if
    /// known, input path).
    public var onProgress: ((Int, Int?, String) -> Void)?
    /// Called when an input fails as a whole (unreadable, damaged zstd);
    /// the ingest goes on with the next input.
    public var onInputError: (Error) -> Void = { _ in }
    public private(set) var failedInputs = 0
    /// The inputs' content format; nil tells each input's by its content.
    public var inputFormat: InputFormat?
    /// The meeting id for events converted from dumps (`--meeting`).
    public var meeting: String?

    /// Events waiting for the next checkpoint, per client: their reports
    /// and their other events.
    private var series: [(reports: ReportSeries, events: EventSeries)] = []
    private var seriesClients: [Int64] = []
    private var seriesIndex: [Int64: Int] = [:]
    private var buffered = 0
    private var payloadScratch: [UInt8] = []

    public init(store: EventStore, nowMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) {
        self.store = store
        self.nowMs = nowMs
    }

    /// Ingests each input in turn; returns the summed summary. While one
    /// input is written, the next one is already being parsed: logs come
    /// as many small files (one per client), and per file the two threads
    /// would otherwise take turns.
    public func ingest(paths: [String]) throws -> IngestSummary {
        var total = IngestSummary()
        var next: Result<PreparedInput, Error>? = nil
        for (i, path) in paths.enumerated() {
            let current = next ?? Result { try prepare(path: path) }
            next = nil
            do {
                let input = try current.get()
                // Stdin cannot be read ahead of its turn (it is one stream).
                if i + 1 < paths.count && paths[i + 1] != "-" && !input.isFinished {
                    next = Result { try prepare(path: paths[i + 1]) }
                }
                total = total + (try write(input))
            } catch let error as InputError {
                failedInputs += 1
                onInputError(error)
            } catch {
                if case .success(let waiting) = next { waiting.queue.cancel() }
                throw error
            }
        }
        return total
    }

    /// Ingests one input; a file whose content was ingested before is skipped.
    public func ingest(path: String) throws -> IngestSummary {
        try write(try prepare(path: path))
    }

    /// An input whose file row is in the store and whose lines are being
    /// parsed on their own thread into `queue`.
    struct PreparedInput {
        var path: String
        var fileID: Int64
        var resumeAfter: Int
        /// The counters so far: restored on resume; `skippedFiles` set when
        /// the content is already stored (then nothing is parsed).
        var summary: IngestSummary
        var queue: BatchQueue
        var size: Int?
        var isFinished: Bool { summary.skippedFiles > 0 }
    }

    /// Looks the input up by content and records it (committed at once: a
    /// kill later leaves a 'partial' row, which the next run resumes), then
    /// starts parsing it.
    private func prepare(path: String) throws -> PreparedInput {
        let db = store.db
        var summary = IngestSummary()
        summary.files = 1
        var fileID: Int64 = 0
        var resumeAfter = 0
        let hash = path == "-" ? nil : try Ingester.hashFile(path)
        let reader = try LineReader(path: path)
        let format = try inputFormat ?? reader.peekContent().withUnsafeBufferPointer { WebRTCImport.sniff($0) }
        // Looked up and created inside a write transaction: two ingests of
        // the same content at once then queue on the write lock, and the
        // second sees the first one's row.
        try db.beginImmediate()
        do {
            if let hash {
                let find = try db.cached(
                    "SELECT id, status, lines_done, lines, events, reports, rejected, duplicates, ignored FROM files WHERE hash = ?")
                find.bind(1, hash)
                if try find.step() {
                    fileID = find.int64(0)
                    if find.string(1) == "done" {
                        find.reset()
                        try db.execute("ROLLBACK")
                        summary.skippedFiles = 1
                        return PreparedInput(path: path, fileID: fileID, resumeAfter: 0, summary: summary, queue: BatchQueue(), size: reader.size)
                    }
                    resumeAfter = find.int(2)
                    summary.lines = find.int(3)
                    summary.events = find.int(4)
                    summary.reports = find.int(5)
                    summary.rejected = find.int(6)
                    summary.duplicates = find.int(7)
                    summary.ignored = find.int(8)
                    find.reset()
                } else {
                    find.reset()
                    fileID = try insertFileRow(hash: hash, path: path)
                }
            } else {
                // Standard input can only be fingerprinted once read: a
                // provisional key, replaced at the end.
                fileID = try insertFileRow(hash: "stdin-\(UUID().uuidString)", path: path)
            }
            try db.commit()
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }

        // Parsing runs on its own thread, a few bounded batches ahead of the
        // writer: the two halves of ingest take about the same time, and the
        // machine has two cores.
        let queue = BatchQueue()
        let nowMs = self.nowMs
        let skipThrough = resumeAfter
        let meeting = self.meeting
        let parsing = Thread {
            if format.isDump {
                Ingester.parseDump(reader, format: format, meeting: meeting, path: path, nowMs: nowMs, skipThrough: skipThrough, into: queue)
                return
            }
            var batches = BatchParser(nowMs: nowMs)
            var hasher = ContentHasher()
            do {
                try reader.forEachLine { line, number, oversize in
                    if path == "-" {
                        hasher.update(UnsafeRawBufferPointer(line))
                        var newline: UInt8 = 0x0A
                        withUnsafeBytes(of: &newline) { hasher.update($0) }
                    }
                    if number <= skipThrough { return }
                    if let full = batches.add(line, number: number, oversize: oversize) {
                        full.bytesRead = reader.bytesRead
                        guard queue.put(.batch(full)) else { throw Cancelled() }
                    }
                }
                let last = batches.take()
                last.bytesRead = reader.bytesRead
                if queue.put(.batch(last)) { _ = queue.put(.end(hash: path == "-" ? hasher.finalize() : nil)) }
            } catch is Cancelled {
            } catch {
                _ = queue.put(.failed(error))
            }
        }
        parsing.stackSize = 1 << 22
        parsing.start()
        summary.formats[format.rawValue, default: .init()].files += 1
        return PreparedInput(path: path, fileID: fileID, resumeAfter: resumeAfter, summary: summary, queue: queue, size: reader.size)
    }

    /// Stores a prepared input's batches as they come, committing every
    /// `commitEvery` lines with the file's progress.
    private func write(_ input: PreparedInput) throws -> IngestSummary {
        if input.isFinished { return input.summary }
        let db = store.db
        let (path, fileID, queue) = (input.path, input.fileID, input.queue)
        var summary = input.summary
        var linesSinceCommit = 0
        var lastProgress = 0
        var committedLines = input.resumeAfter
        do {
            try db.beginImmediate()
            loop: while true {
                switch queue.take() {
                case .batch(let batch):
                    try write(batch, fileID: fileID, path: path, summary: &summary)
                    linesSinceCommit += batch.lines
                    if !batch.holdsCommit
                        && (linesSinceCommit >= commitEvery || buffered >= 2 * commitEvery || series.count >= Ingester.maxBufferedClients)
                    {
                        try claim(fileID: fileID, committed: committedLines)
                        try checkpoint(fileID: fileID, linesDone: batch.lastLine, status: "partial", summary: &summary)
                        try db.commit()
                        committedLines = batch.lastLine
                        try db.beginImmediate()
                        linesSinceCommit = 0
                    }
                    if let onProgress, batch.lastLine - lastProgress >= 16_384 {
                        lastProgress = batch.lastLine
                        onProgress(batch.bytesRead, input.size, path)
                    }
                case .end(let stdinHash):
                    try claim(fileID: fileID, committed: committedLines)
                    try checkpoint(fileID: fileID, linesDone: Int.max, status: "done", summary: &summary)
                    if let stdinHash { try settleStdinHash(fileID: fileID, hash: stdinHash) }
                    try db.commit()
                    break loop
                case .failed(let error):
                    throw error
                }
            }
        } catch {
            queue.cancel()
            try? db.execute("ROLLBACK")
            clearBuffers()
            store.forgetCachedIDs()
            if error is IngestedElsewhere {
                // Another process took this content over between two of our
                // commits and went further: it finishes the file. What we
                // committed before is a prefix of what it commits.
                var skipped = IngestSummary()
                skipped.files = 1
                skipped.skippedFiles = 1
                return skipped
            }
            throw error
        }
        onProgress?(input.size ?? 0, input.size, path)
        return summary
    }

    /// The parsing thread's work for a stats dump: read it whole, convert
    /// it, and pass the produced event lines through the same batches as a
    /// log's (validation, dedupe and resume apply unchanged). The resume
    /// point counts the dump's rejects, then its produced lines.
    ///
    /// A webrtc-internals dump's connections are handed on as each is
    /// converted, so that the writer stores them meanwhile; their batches
    /// hold the commit until the whole document has proved valid.
    static func parseDump(
        _ reader: LineReader, format: InputFormat, meeting: String?, path: String, nowMs: Int64, skipThrough: Int,
        into queue: BatchQueue
    ) {
        do {
            var hasher = ContentHasher()
            var batches = BatchParser(nowMs: nowMs)
            var number = 0
            func put(_ full: ParsedBatch?, holding: Bool) throws {
                guard let full else { return }
                full.bytesRead = reader.bytesRead
                full.holdsCommit = holding
                guard queue.put(.batch(full)) else { throw Cancelled() }
            }
            func add(_ lines: UnsafeBufferPointer<UInt8>, holding: Bool) throws {
                var start = 0
                while let newline = lines[start...].firstIndex(of: 0x0A) {
                    number += 1
                    if number > skipThrough {
                        try put(batches.add(UnsafeBufferPointer(rebasing: lines[start..<newline]), number: number, oversize: nil), holding: holding)
                    }
                    start = newline + 1
                }
            }
            // rtcstats rejects are numbered before its lines, so its lines wait for the end.
            let streaming = format == .webrtcInternals
            let conversion: Conversion
            do {
                conversion = try reader.withContent { content in
                    if path == "-" { hasher.update(UnsafeRawBufferPointer(content)) }
                    return try WebRTCImport.convert(
                        content, format: format, fileName: path, meeting: meeting,
                        emit: streaming ? { try add($0, holding: true) } : nil)
                }
            } catch let error as ImportError {
                throw InputError.invalidDump(path, error.reason)
            }
            for reject in conversion.rejects {
                number += 1
                if number <= skipThrough { continue }
                try put(batches.addReject(line: reject.line, reason: reject.reason, raw: reject.raw, number: number), holding: false)
            }
            try conversion.lines.withUnsafeBufferPointer { try add($0, holding: false) }
            let last = batches.take()
            last.bytesRead = reader.bytesRead
            last.conversion = ConversionCounts(conversion)
            if queue.put(.batch(last)) { _ = queue.put(.end(hash: path == "-" ? hasher.finalize() : nil)) }
        } catch is Cancelled {
        } catch {
            _ = queue.put(.failed(error))
        }
    }

    /// Moves a parsed batch into the per-client buffers and records its
    /// rejects (writer thread).
    private func write(_ batch: ParsedBatch, fileID: Int64, path: String, summary: inout IngestSummary) throws {
        if let c = batch.conversion {
            var counts = summary.formats[c.format.rawValue, default: .init()]
            counts.connections += c.connections
            counts.samples += c.samples
            counts.events += c.events
            summary.formats[c.format.rawValue] = counts
            summary.skippedConnections += c.skipped
        }
        summary.lines += batch.lines
        summary.ignored += batch.ignored
        let slots = try batch.clients.map { try seriesSlot(client: store.clientID(meeting: $0.meeting, uid: $0.uid)) }
        for i in batch.reportTs.indices {
            let v = 5 * i
            series[slots[Int(batch.reportClient[i])]].reports.append(
                ts: batch.reportTs[i],
                (batch.reportValues[v], batch.reportValues[v + 1], batch.reportValues[v + 2],
                 batch.reportValues[v + 3], batch.reportValues[v + 4]))
        }
        var start = 0
        for i in batch.eventTs.indices {
            let end = batch.payloadEnds[i]
            series[slots[Int(batch.eventClient[i])]].events.append(
                ts: batch.eventTs[i], kind: batch.eventKind[i], payload: Array(batch.payloadBytes[start..<end]))
            start = end
        }
        buffered += batch.reportTs.count + batch.eventTs.count
        for reject in batch.rejects {
            summary.rejected += 1
            try recordReject(raw: reject.raw, number: reject.line, reason: reject.reason, fileID: fileID, path: path)
        }
    }

    /// The index of `client`'s buffers in `series`, created when new.
    private func seriesSlot(client: Int64) -> Int {
        if let index = seriesIndex[client] { return index }
        seriesIndex[client] = series.count
        series.append((ReportSeries(), EventSeries()))
        seriesClients.append(client)
        return series.count - 1
    }

    /// A rejected line's text as stored: at most 4 KiB, cut at a character.
    static func rawText(_ line: UnsafeBufferPointer<UInt8>) -> String {
        var cut = min(line.count, 4096)
        while cut < line.count && cut > 0 && line[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: line[..<cut]), as: UTF8.self)
    }

    private func insertFileRow(hash: String, path: String) throws -> Int64 {
        let insert = try store.db.cached("INSERT INTO files (hash, path, status, ingested_at) VALUES (?, ?, 'partial', ?)")
        insert.bind(1, hash)
        insert.bind(2, path)
        insert.bind(3, Int64(Date().timeIntervalSince1970 * 1000))
        try insert.run()
        return store.db.lastInsertRowID
    }

    /// Identical stdin content ingested before: keep the older row (this run
    /// only found duplicates); otherwise record the real fingerprint.
    private func settleStdinHash(fileID: Int64, hash: String) throws {
        let find = try store.db.cached("SELECT id FROM files WHERE hash = ?")
        find.bind(1, hash)
        let exists = try find.step()
        find.reset()
        if exists {
            let moveRejects = try store.db.cached("UPDATE rejects SET file_id = NULL WHERE file_id = ?")
            moveRejects.bind(1, fileID)
            try moveRejects.run()
            let delete = try store.db.cached("DELETE FROM files WHERE id = ?")
            delete.bind(1, fileID)
            try delete.run()
        } else {
            let update = try store.db.cached("UPDATE files SET hash = ? WHERE id = ?")
            update.bind(1, hash)
            update.bind(2, fileID)
            try update.run()
        }
    }

    private func recordReject(raw: String, number: Int, reason: String, fileID: Int64, path: String) throws {
        let insert = try store.db.cached("INSERT INTO rejects (file_id, file, line, reason, raw) VALUES (?, ?, ?, ?, ?)")
        insert.bind(1, fileID)
        insert.bind(2, path)
        insert.bind(3, number)
        insert.bind(4, reason)
        insert.bind(5, raw)
        try insert.run()
        onReject(RejectedLine(file: path, line: number, reason: reason))
    }

    /// Another ingest of the same content committed progress since our last
    /// commit (two `mqa ingest` of one file at once).
    struct IngestedElsewhere: Error {}

    /// Checks, inside the open transaction, that the file's progress is still
    /// the one this ingest last committed; otherwise another process is
    /// ingesting the same content and this one stands down (its open batch
    /// rolled back), so that no line is stored or rejected twice.
    private func claim(fileID: Int64, committed: Int) throws {
        let select = try store.db.cached("SELECT lines_done FROM files WHERE id = ?")
        select.bind(1, fileID)
        let current = try select.step() ? select.int(0) : -1
        select.reset()
        if current != committed { throw IngestedElsewhere() }
    }

    /// Writes the buffered reports and the file's progress, inside the open
    /// transaction, so a commit always holds a whole prefix of the file.
    private func checkpoint(fileID: Int64, linesDone: Int, status: String, summary: inout IngestSummary) throws {
        for (client, buffer) in zip(seriesClients, series).sorted(by: { $0.0 < $1.0 }) {
            try store.markStale(client: client)
            let reportDuplicates = try store.storeReports(buffer.reports, client: client)
            let eventDuplicates = try store.storeEvents(buffer.events, client: client)
            summary.duplicates += reportDuplicates + eventDuplicates
            summary.events += buffer.reports.count + buffer.events.count - reportDuplicates - eventDuplicates
            summary.reports += buffer.reports.count - reportDuplicates
        }
        clearBuffers()
        let update = try store.db.cached(
            """
            UPDATE files SET status = ?, lines_done = ?, lines = ?, events = ?, reports = ?,
              rejected = ?, duplicates = ?, ignored = ? WHERE id = ?
            """)
        update.bind(1, status)
        update.bind(2, Int64(min(linesDone, Int(Int64.max))))
        update.bind(3, summary.lines)
        update.bind(4, summary.events)
        update.bind(5, summary.reports)
        update.bind(6, summary.rejected)
        update.bind(7, summary.duplicates)
        update.bind(8, summary.ignored)
        update.bind(9, fileID)
        try update.run()
    }

    private func clearBuffers() {
        series.removeAll()
        seriesClients.removeAll()
        seriesIndex.removeAll()
        buffered = 0
    }

    @inline(__always)
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in line where !(b == 0x20 || b == 0x09 || b == 0x0D) { return false }
        return true
    }

    /// The content fingerprint of a file, read in 1 MiB blocks.
    static func hashFile(_ path: String) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { throw InputError.cannotOpen(path, String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw InputError.isDirectory(path) }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw InputError.cannotOpen(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = ContentHasher()
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError.readFailed(path, String(cString: strerror(errno)))
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return hasher.finalize()
    }
}
