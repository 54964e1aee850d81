#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQABase
import MQAModel
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

    /// Called for every rejected line the store holds for an input once
    /// the input is written (or fails), in line order (the CLI prints the
    /// first 20): read back from the store, so that a copy of content
    /// ingested before (skipped whole) tells none, and a run that resumes
    /// a file tells the rejects of the part a killed run stored too, as
    /// its summary counts them.
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
    /// Clients whose series came made ready from the parsing thread.
    private var preparedSeries: [(client: Int64, series: PreparedSeries)] = []
    private var seriesIndex: [Int64: Int] = [:]
    private var buffered = 0

    /// Inputs share write transactions: one commits after `commitEvery`
    /// lines or this many inputs, whichever comes first. A commit per
    /// input was a fifth of the time of an ingest of many small logs
    /// (each commit writes the pages it touched to the WAL). Each input
    /// is a savepoint within, so a failing input undoes only itself.
    static let inputsPerCommit = 256
    /// Inputs parsed ahead of the writer: always this many, and more while
    /// those ahead hold under `bytesAhead` of input (at most `maxInputsAhead`).
    /// Logs come as many small files, and six of them (~5,000 lines) kept
    /// the parsers busy for a few milliseconds only: while the writer spent
    /// ~0.1 s encoding and storing a commit's clients, a core sat idle.
    /// On 1,777 files (4 runs each): wall 1.05 s with 6 ahead, 0.93 s with
    /// 4 or 16 MB ahead, 0.95 s with 64 MB (peak RSS 44, 52, 63, 79 MB).
    /// Once the parsing threads encoded the chunks too (`PreparedSeries`),
    /// more room paid again: 0.758 s with 8 MB, 0.735 s with 16, 0.724 s
    /// with 32 (peak RSS 66, 73, 87 MB).
    static let inputsAhead = 6
    static let maxInputsAhead = 256
    static let bytesAhead = 32 << 20
    /// Where `prepare` runs each input's parsing (one per public `ingest`).
    private var parsing: ParseThreads?
    /// How consecutive inputs begin and end (`ContinuationBoard`), for an
    /// ingest of several.
    private var board: ContinuationBoard?
    /// A client's series held back at the end of the input that gave it,
    /// as its log goes on in the next input: stored joined with the next
    /// piece, or alone before anything else is stored or committed. Its
    /// items are counted in the input that gave them.
    private var carried: (client: Int64, series: PreparedSeries)?
    /// `carried` as the input being written found it: what an undone input
    /// puts back.
    private var carriedBeforeInput: (client: Int64, series: PreparedSeries)?
    /// Series the writer made (a log's pieces joined) being encoded on the
    /// encoder's thread, in the order given: each is inserted once it is
    /// encoded, before anything else of its client is stored or looked up,
    /// and all of them before a commit. Their items were counted in the
    /// input that gave them.
    private var encoding: [(client: Int64, job: EncodingJob)] = []
    /// `encoding` as the input being written found it: what an undone input
    /// puts back (whatever of it the input inserted was undone with it).
    private var encodingBeforeInput: [(client: Int64, job: EncodingJob)] = []
    /// Where `encoding` runs (one per `ingest(paths:)`, with `board`).
    private var encoder: SeriesEncoder?
    /// The most a held-back series holds: a client of more is stored.
    static let maxCarried = 8 * EventStore.chunkCapacity
    /// Whether a client's log in consecutive inputs is joined before it is
    /// encoded (`ContinuationBoard`); off, each piece is encoded and the
    /// pieces' chunks rewritten (tests compare the two).
    package var joinsPieces = true
    /// Pieces held back for the next input, and joined to the one before
    /// (tests).
    private(set) var piecesHeld = 0
    private(set) var piecesJoined = 0
    /// Series given to the encoder's thread (tests).
    private(set) var seriesEncodedAside = 0
    private var linesSinceCommit = 0
    private var inputsSinceCommit = 0
    /// What the commits of this ingest hold (the summary an ingest that
    /// stops early reports), what the open transaction holds on top, and
    /// the part of the current input that its own checkpoints committed.
    public private(set) var committedSummary = IngestSummary()
    private var uncommitted = IngestSummary()
    private var inputCommitted: IngestSummary?
    /// Of the inputs in `uncommitted`, the parts their own checkpoints
    /// committed: stored even when the open transaction is lost.
    private var uncommittedInputParts = IngestSummary()
    /// How long the writer waits for its next batch before it commits what
    /// it holds and lets go of the write lock: an input that comes slowly
    /// (a pipe, a slow disk) must never keep another ingest from writing.
    /// Short next to the 60 s another writer waits, long next to the
    /// milliseconds a parsing thread takes for a batch, so that the
    /// ordinary ingest commits no more often than before.
    public var idleCommitAfter = 0.25

    /// Summarizes meetings the writer is done with while the next inputs
    /// are read; off for a store in memory. What it leaves stale,
    /// `EventStore.refreshSummaries` does after.
    public var summarizeWhileReading = true
    private var summaries = SummaryScheduler(workers: nil)
    /// What this ingest's codecs encoded, for its summaries to take back
    /// (`RecentChunks`); set before the inputs' threads start.
    private var recent: RecentChunks?
    /// Meetings handed to the summary worker during the inputs (tests).
    var summariesOffered: Int { summaries.offered }
    /// Stamps for stale meetings, one per transaction (see `markStale`):
    /// a summary worker only ever sees committed stamps, so those within
    /// one transaction need not differ.
    private var stamps = SplitMix64(seed: UInt64(UInt32(truncatingIfNeeded: getpid())) << 32 ^ UInt64(DispatchTime.now().uptimeNanoseconds))
    private var transactionStamp: Int64 = 2
    /// The meetings the open transaction marked stale (with
    /// `transactionStamp`): marking one again would write the same stamp.
    /// An UPDATE per client and input was 29k instructions, the writer's
    /// dearest statement per input.
    private var staleMeetings: Set<Int64> = []
    /// Each client's meeting, as far as known: kept across commits, but
    /// not past a rollback, after which a client id may be given anew.
    private var clientMeetings: [Int64: Int64] = [:]
    /// This ingester began the write transaction and has neither committed
    /// nor rolled it back. Should the store then have none open, SQLite
    /// gave it up after a failed statement (a full disk), possibly one
    /// whose error an input read ahead holds until its turn: what the
    /// transaction held is lost, and the ingest must stop, not begin anew
    /// and count it as stored.
    private var transactionBegun = false

    public init(store: EventStore, nowMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) {
        self.store = store
        self.nowMs = nowMs
        transactions = store
    }

    /// The write transactions: the store's own; a test puts one that fails
    /// on cue in its place.
    package var transactions: IngestTransactions

    /// Ingests each input in turn; returns the summed summary. While one
    /// input is written, the next `inputsAhead` are already being parsed:
    /// logs come as many small files (one per client), and with one input
    /// ahead the parser of the next often waited for the writer to start it.
    /// Each input ahead holds at most a few batches (`BatchQueue`).
    public func ingest(paths: [String]) throws -> IngestSummary {
        let threads = ParseThreads(limit: Ingester.inputsAhead + 1)
        parsing = threads
        defer { threads.close() }
        let board = ContinuationBoard(paths: paths)
        self.board = joinsPieces ? board : nil
        // Left on the store after the inputs: the summary pass after them
        // (`refreshSummaries`) takes what its meetings need, then drops it.
        let recent = RecentChunks()
        self.recent = recent
        store.recentChunks = recent
        let encoder = SeriesEncoder(recent: recent)
        self.encoder = encoder
        defer {
            // Not held past the inputs here: the store's reference is the
            // one `refreshSummaries` drops.
            self.recent = nil
            board.close()
            self.board = nil
            encoder.close()
            self.encoder = nil
        }
        if summarizeWhileReading && store.path != ":memory:" {
            summaries = SummaryScheduler(workers: try SummaryWorkers(path: store.path, count: 1, background: true, recent: recent))
        }
        defer { summaries.finish(storingInto: store) }
        defer { rollBackOpenTransaction() }
        startCounting()
        // Inputs prepared ahead, their parsing threads running, by index;
        // `next` is the first not prepared, and `bytes` their summed sizes.
        var ahead: [Int: Result<PreparedInput, Error>] = [:]
        var next = 0
        var bytes = 0
        func size(_ r: Result<PreparedInput, Error>) -> Int { (try? r.get().size ?? 0) ?? 0 }
        for (i, path) in paths.enumerated() {
            let current: Result<PreparedInput, Error>
            if let prepared = ahead.removeValue(forKey: i) {
                current = prepared
                bytes -= size(prepared)
            } else {
                current = Result { try prepare(path: path, index: i) }
                next = i + 1
            }
            do {
                let input = try current.get()
                // Stdin cannot be read ahead of its turn (it is one stream),
                // nor anything after it.
                while next < paths.count && paths[next] != "-" && next - i <= Ingester.maxInputsAhead
                    && (next - i <= Ingester.inputsAhead || bytes < Ingester.bytesAhead)
                {
                    let prepared = Result { try prepare(path: paths[next], index: next) }
                    ahead[next] = prepared
                    bytes += size(prepared)
                    next += 1
                }
                inputCommitted = nil
                defer { board.forget(before: i) }
                // Written first: `write` may commit, and so change `uncommitted`.
                let written = try write(input)
                uncommitted = uncommitted + written
                if let part = inputCommitted { uncommittedInputParts = uncommittedInputParts + part }
                inputCommitted = nil
                if linesSinceCommit >= commitEvery || inputsSinceCommit >= Ingester.inputsPerCommit { try commit() }
            } catch let error as InputError {
                failedInputs += 1
                onInputError(error)
            } catch {
                for case .success(let waiting) in ahead.values { waiting.queue.cancel() }
                throw stopped(by: error)
            }
        }
        do {
            try commitOpenTransaction()
        } catch {
            throw stopped(by: error)
        }
        return committedSummary
    }

    /// Each public `ingest` reports what its own commits hold.
    private func startCounting() {
        committedSummary = IngestSummary()
        uncommitted = IngestSummary()
        uncommittedInputParts = IngestSummary()
        inputCommitted = nil
    }

    /// The error that ends an ingest early, with what its commits hold.
    private func stopped(by error: Error) -> IngestFailure {
        if let failure = error as? IngestFailure { return failure }
        var committed = committedSummary + uncommittedInputParts
        if let part = inputCommitted { committed = committed + part }
        return IngestFailure(store: store.path, underlying: error, committed: committed)
    }

    /// Ingests one input; a file whose content was ingested before is skipped.
    public func ingest(path: String) throws -> IngestSummary {
        let threads = ParseThreads(limit: 1)
        parsing = threads
        defer { threads.close() }
        defer { rollBackOpenTransaction() }
        startCounting()
        do {
            let written = try write(try prepare(path: path))
            uncommitted = uncommitted + written
            try commitOpenTransaction()
        } catch let error as InputError {
            throw error
        } catch {
            throw stopped(by: error)
        }
        return committedSummary
    }

    /// Opens the shared write transaction unless one is open.
    private func beginIfNeeded() throws {
        if !transactions.isOpen {
            try checkTransactionNotLost()
            try transactions.begin()
            transactionBegun = true
            transactionStamp = Int64(bitPattern: stamps.next() | 2) & Int64.max  // never 0 or 1
            staleMeetings.removeAll(keepingCapacity: true)
        }
    }

    /// Throws when the store no longer has open the transaction this
    /// ingester began (`transactionBegun`).
    private func checkTransactionNotLost() throws {
        guard transactionBegun && !transactions.isOpen else { return }
        throw StoreError.inconsistent(
            "the store gave up the open write transaction (after a failed write, as on a full disk); "
                + "nothing since the last commit was stored")
    }

    /// Marks `client`'s meeting stale in the open transaction, unless it
    /// already is; returns the meeting's row id.
    private func markStale(client: Int64) throws -> Int64 {
        if let meeting = clientMeetings[client] {
            if staleMeetings.insert(meeting).inserted { try store.markStale(meeting: meeting, stamp: transactionStamp) }
            return meeting
        }
        let meeting = try store.markStale(client: client, stamp: transactionStamp)
        // Bounded, as the store's cache of client ids is.
        if clientMeetings.count >= 1 << 16 { clientMeetings.removeAll(keepingCapacity: true) }
        clientMeetings[client] = meeting
        staleMeetings.insert(meeting)
        return meeting
    }

    /// After a rollback (an input's savepoint, or the transaction) the
    /// marks it undid are gone, and the client ids it gave may be given
    /// anew. A transaction that ends otherwise than by `commit` ends here
    /// (`rollBackOpenTransaction`), or is found lost before anything
    /// begins again (`checkTransactionNotLost`).
    private func forgetStaleMarks() {
        staleMeetings.removeAll(keepingCapacity: true)
        clientMeetings.removeAll()
    }

    /// Commits the shared transaction, and hands the meetings it settled
    /// to the summary worker. Only once COMMIT has succeeded do the inputs
    /// it held count as stored: on a full disk the COMMIT is what fails.
    private func commit() throws {
        try storeCarried()
        carriedBeforeInput = nil
        try storeEncoded(all: true)
        encodingBeforeInput = []
        try checkTransactionNotLost()
        try transactions.commit()
        transactionBegun = false
        linesSinceCommit = 0
        inputsSinceCommit = 0
        committedSummary = committedSummary + uncommitted
        uncommitted = IngestSummary()
        uncommittedInputParts = IngestSummary()
        summaries.committed()
    }

    /// Commits what the inputs stored (a failed one has undone itself).
    /// Throws when the COMMIT fails; the transaction is then rolled back
    /// (by `rollBackOpenTransaction`), and the caller reports only what
    /// earlier commits hold.
    private func commitOpenTransaction() throws {
        try checkTransactionNotLost()
        guard transactions.isOpen else { return }
        try commit()
    }

    /// The ingest ends by an error: whatever its open transaction holds is
    /// undone, so the store stays at its last commit (which a re-run resumes).
    private func rollBackOpenTransaction() {
        transactionBegun = false
        forgetStaleMarks()
        carried = nil
        carriedBeforeInput = nil
        encoding = []
        encodingBeforeInput = []
        uncommitted = IngestSummary()
        uncommittedInputParts = IngestSummary()
        // A failed ROLLBACK leaves SQLite to roll back when the connection
        // closes, or the next opener to recover from the WAL: either way
        // nothing past the last commit remains, and the error that brought
        // us here is already on its way to the user.
        transactions.rollback()
    }

    /// An input whose lines are being parsed on a parse thread into `queue`.
    struct PreparedInput {
        var path: String
        /// Its `files` row: the one being resumed, or a new one; 0 while it
        /// is compared with a finished record (created on `.restart`).
        var fileID: Int64
        var resumeAfter: Int
        /// The counters so far (restored on resume).
        var summary: IngestSummary
        var queue: BatchQueue
        var size: Int?
        /// A regular file, not a pipe or a terminal.
        var isRegularFile: Bool
    }

    /// Decides from the path's newest record how to read the input (resume,
    /// compare or parse afresh), records a new input (in the shared write
    /// transaction: once committed, a kill leaves a 'partial' row that the
    /// next run resumes; before, no row, and the next run starts afresh), then
    /// starts the parsing thread. The input is read once, on that thread;
    /// only when a regular file turns out not to be what its record says is
    /// it opened again, from the start.
    private func prepare(path: String, index: Int? = nil) throws -> PreparedInput {
        var handedToParser = false
        let slot = index.flatMap { i in board.map { BoardSlot(board: $0, input: i) } }
        defer { slot.map { $0.board.handedOut($0.input, parsed: handedToParser) } }
        var summary = IngestSummary()
        summary.files = 1
        var fileID: Int64 = 0
        var resumeAfter = 0
        let reader = try LineReader(path: path)
        var plan = ReadPlan.fresh
        // Looked up and created inside a write transaction: two ingests of
        // the same file at once then queue on the write lock, and the second
        // sees the first one's row.
        try beginIfNeeded()
        let decision = ReadPlan.decide(reader.isRegularFile && path != "-" ? try store.latestFile(path: path) : nil)
        plan = decision.plan
        if let r = decision.resuming {
            fileID = r.id
            resumeAfter = r.linesDone
            summary = summary + r.summary
        }
        if let old = decision.superseding { try store.setFileStatus(old.id, .superseded) }
        if decision.needsRecord { fileID = try store.insertFile(path: path, emptyDigest: Ingester.emptyDigest) }

        // Parsing runs on a thread of its own, a few bounded batches ahead
        // of the writer: the two halves of ingest take about the same time,
        // and the machine has two cores. The format is told there too, from
        // the first bytes (which stay pending for the real read): peeking
        // 64 KB of every input had been the writer's to do.
        let queue = BatchQueue()
        let nowMs = self.nowMs
        let readPlan = plan
        let meeting = self.meeting
        let forced = inputFormat
        let recent = self.recent
        guard let parsing else { preconditionFailure("prepare outside ingest") }
        handedToParser = true
        parsing.run {
            // The thread's codec outlives this ingest: it remembers for this one.
            ParseThreadState.current.codec.recent = recent
            defer {
                // Whatever happened, nobody waits for this input any more.
                slot?.standAside()
            }
            do {
                let format = try forced ?? reader.withPeekedContent { WebRTCImport.sniff($0) }
                guard queue.put(.format(format)) else { throw Cancelled() }
                if format.isDump {
                    slot?.standAside()
                    try DumpReading.run(reader, format: format, meeting: meeting, plan: readPlan, nowMs: nowMs, into: queue)
                } else {
                    try Ingester.run(reader, plan: readPlan, nowMs: nowMs, into: queue, board: slot)
                }
            } catch is Cancelled {
            } catch {
                _ = queue.put(.failed(error))
            }
        }
        return PreparedInput(
            path: path, fileID: fileID, resumeAfter: resumeAfter, summary: summary, queue: queue, size: reader.size,
            isRegularFile: reader.isRegularFile)
    }

    /// The SHA-256 of no content: the prefix of a file at line 0.
    static let emptyDigest = SHA256().snapshotText()

    /// An input's place on the ingest's `ContinuationBoard`.
    struct BoardSlot {
        var board: ContinuationBoard
        var input: Int

        /// The input takes no part (`ContinuationBoard.standAside`).
        func standAside() { board.standAside(input) }
    }

    /// The parsing thread: carries out `plan` on `reader`. Only an input
    /// read afresh takes part in the board (`slot`).
    private static func run(_ reader: LineReader, plan: ReadPlan, nowMs: Int64, into queue: BatchQueue, board slot: BoardSlot? = nil) throws {
        if case .fresh = plan {} else if let slot {
            slot.standAside()
        }
        switch plan {
        case .fresh:
            try parse(reader, skipThrough: 0, nowMs: nowMs, into: queue, board: slot)
        case .compare(let digest):
            let same: Bool
            if digest.hasPrefix("sha256:") {
                try reader.forEachLine { _, _, _ in if queue.isCancelled { throw Cancelled() } }
                same = reader.finalDigest == digest && reader.changedWhileReading() == nil
            } else {
                // A record of an older mqa: its fingerprint is over the raw bytes.
                same = try hashFile(reader.path) == digest
            }
            if same {
                _ = queue.put(.skip)
                return
            }
            guard queue.put(.restart) else { throw Cancelled() }
            try parse(LineReader(path: reader.path), skipThrough: 0, nowMs: nowMs, into: queue)
        case .resume(let after, let prefix):
            do {
                try parse(reader, skipThrough: after, expecting: prefix, nowMs: nowMs, into: queue)
            } catch is PrefixMismatch {
                // The file no longer starts with what was stored: read it anew.
                guard queue.put(.restart) else { throw Cancelled() }
                try parse(LineReader(path: reader.path), skipThrough: 0, nowMs: nowMs, into: queue)
            }
        }
    }

    /// The content through the resume line is not what was stored.
    private struct PrefixMismatch: Error {}

    /// Parses `reader`'s lines after `skipThrough` into batches. With
    /// `expecting`, the content through line `skipThrough` must have that
    /// digest (checked before any batch is sent), else `PrefixMismatch`.
    private static func parse(
        _ reader: LineReader, skipThrough: Int, expecting prefix: String? = nil, nowMs: Int64, into queue: BatchQueue,
        board slot: BoardSlot? = nil
    ) throws {
        let thread = ParseThreadState.current
        var batches = BatchParser(nowMs: nowMs)
        batches.reserve(thread.lastBatch)
        var verified = skipThrough == 0
        var sent = 0
        // Told as soon as known: the input before decides at its end.
        var toldFirst = slot == nil
        try reader.forEachLine { line, number, oversize in
            if number <= skipThrough {
                if number == skipThrough, let prefix {
                    guard reader.digestThroughCurrentLine() == prefix else { throw PrefixMismatch() }
                    verified = true
                }
                return
            }
            let full = batches.add(line, number: number, oversize: oversize)
            if !toldFirst, let slot, let first = batches.firstClient {
                slot.board.tellFirst(first, of: slot.input)
                toldFirst = true
            }
            if let full {
                if let slot, sent == 0 {
                    // More than one batch: this input takes no part (told
                    // before the put, which may wait for the writer).
                    slot.standAside()
                }
                full.bytesRead = reader.bytesRead
                full.prefixDigest = reader.digestThroughCurrentLine()
                guard queue.put(.batch(full)) else { throw Cancelled() }
                sent += 1
            }
        }
        if !verified { throw PrefixMismatch() }
        let lastClient = batches.lastClient
        let last = batches.take()
        // An input of one batch (most logs: one client's) is stored at its
        // end with nothing else buffered: its clients' series are made
        // ready here, on the parsing thread, rather than by the writer.
        if sent == 0 {
            thread.lastBatch = last.sizes
            let joins = slot.map { $0.board.decide(input: $0.input, clients: last.clients, last: lastClient) } ?? Continuation()
            try last.prepare(codec: &thread.codec, joins: joins)
        }
        last.bytesRead = reader.bytesRead
        last.prefixDigest = reader.finalDigest ?? ""
        guard queue.put(.batch(last)) else { throw Cancelled() }
        _ = queue.put(.end(digest: reader.finalDigest ?? "", changed: reader.changedWhileReading()))
    }

    /// Stores a prepared input's batches as they come, committing every
    /// `commitEvery` lines with the file's progress.
    private func write(_ input: PreparedInput) throws -> IngestSummary {
        let (path, queue) = (input.path, input.queue)
        var fileID = input.fileID
        var summary = input.summary
        var lastProgress = 0
        // This input's progress as last written to its row (committed or
        // not): another process that took the file over changed it.
        var writtenLines = input.resumeAfter
        var changed: String? = nil
        func beginInput() throws {
            try beginIfNeeded()
            try transactions.beginInput()
        }
        func endInput() throws {
            try transactions.endInput()
            inputsSinceCommit += 1
        }
        // The last batch written since this input's last checkpoint, if any.
        var unsaved: ParsedBatch? = nil
        // Standard input cannot be resumed (nor read again): its batches'
        // (last line, prefix digest), to find a killed run of the same
        // content once it is done.
        var boundaries: [Int: String] = [:]
        carriedBeforeInput = carried
        encodingBeforeInput = encoding
        // No batch is ready: commit what the transaction holds and let go of
        // the write lock while the input is awaited. Not while a batch
        // holds the commit (a dump's connections, valid only as a whole),
        // and, for a regular file (read at the disk's pace, so never for
        // long), not while its own batches are unsaved: a file that fails
        // half-way is then undone whole, whatever the machine's load.
        func idle() throws {
            guard transactions.isOpen, unsaved?.holdsCommit != true, unsaved == nil || !input.isRegularFile else { return }
            if let batch = unsaved { try commitCheckpoint(after: batch) } else { try commit() }
        }
        // Stores the buffered events and the file's progress through `batch`,
        // and commits (ending the savepoint too): a kill after it resumes there.
        func commitCheckpoint(after batch: ParsedBatch) throws {
            try claim(fileID: fileID, written: writtenLines)
            try checkpoint(fileID: fileID, linesDone: batch.lastLine, prefix: batch.prefixDigest, status: .partial, summary: &summary)
            writtenLines = batch.lastLine
            unsaved = nil
            try commit()
            inputCommitted = summary
        }
        do {
            try beginInput()
            loop: while true {
                let item = try queue.take(idleAfter: idleCommitAfter, whileWaiting: idle)
                if !transactions.isOpen { try beginInput() }
                switch item {
                case .batch(let batch):
                    try write(batch, fileID: fileID, path: path, summary: &summary)
                    if path == "-" || !input.isRegularFile { boundaries[batch.lastLine] = batch.prefixDigest }
                    unsaved = batch
                    linesSinceCommit += batch.lines
                    if !batch.holdsCommit
                        && (linesSinceCommit >= commitEvery || buffered >= 2 * commitEvery
                            || series.count + preparedSeries.count >= Ingester.maxBufferedClients)
                    {
                        try commitCheckpoint(after: batch)
                        try beginInput()
                    }
                    try summaries.storeReady(into: store)
                    if let onProgress, batch.lastLine - lastProgress >= 16_384 {
                        lastProgress = batch.lastLine
                        onProgress(batch.bytesRead, input.size, path)
                    }
                case .format(let format):
                    summary.formats[format.rawValue, default: .init()].files += 1
                case .skip:
                    try transactions.endInput()
                    var skipped = IngestSummary()
                    skipped.files = 1
                    skipped.skippedFiles = 1
                    return skipped
                case .restart:
                    if fileID != 0 { try store.setFileStatus(fileID, .superseded) }
                    fileID = try store.insertFile(path: path, emptyDigest: Ingester.emptyDigest)
                    let formats = summary.formats  // which format this input is: still true
                    summary = IngestSummary()
                    summary.files = 1
                    summary.formats = formats
                    writtenLines = 0
                    unsaved = nil
                    inputCommitted = nil
                case .end(let digest, let changedHow):
                    try claim(fileID: fileID, written: writtenLines)
                    changed = changedHow
                    // The row is written once, below, with the hash: a
                    // second UPDATE per input was a tenth of the writer's
                    // fixed cost per input.
                    try checkpoint(fileID: fileID, summary: &summary)
                    if try store.finishedFile(hash: digest, except: fileID) != nil {
                        // The same content was ingested before under another
                        // name: this run found only duplicates. Keep the
                        // older record (and its rejects) alone, and say
                        // nothing of rejects this run did not keep.
                        try store.forgetFile(fileID)
                        try endInput()
                        var skipped = IngestSummary()
                        skipped.files = 1
                        skipped.skippedFiles = 1
                        return skipped
                    }
                    // A killed run of this same stream (its record partial,
                    // its prefix one of this run's) is this run's first part:
                    // its record and rejects go, or `query rejects` would list
                    // those lines twice. Its events were stored by it, and
                    // this run found each again as a duplicate: counted as
                    // the killed run's, the record is a clean run's.
                    for partial in try boundaries.isEmpty ? [] : store.partialFiles(path: path) where partial.id != fileID {
                        guard let prefix = partial.prefixHash, boundaries[partial.linesDone] == prefix else { continue }
                        try store.forgetFile(partial.id)
                        summary.events += partial.summary.events
                        summary.reports += partial.summary.reports
                        summary.duplicates -= partial.summary.events
                    }
                    // A finished row keeps no prefix digest: its hash is
                    // the whole content's, and 71 bytes a row (with ~100 KB
                    // inputs, 3 % of a store) held it a second time.
                    try store.updateFile(
                        fileID, status: changed == nil ? .done : .changed, linesDone: Int(Int64.max), prefixHash: nil, hash: digest,
                        summary: summary)
                    try endInput()
                    break loop
                case .failed(let error):
                    throw error
                }
            }
        } catch {
            queue.cancel()
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
            if error is IngestedElsewhere {
                // Another process took this content over between two of our
                // commits and went further: it finishes the file. What we
                // committed before is a prefix of what it commits.
                var skipped = IngestSummary()
                skipped.files = 1
                skipped.skippedFiles = 1
                return skipped
            }
            // What the input's own checkpoints stored stays: told as such.
            if fileID != 0 && summary.rejected > 0 { try? tellStoredRejects(fileID: fileID, path: path) }
            throw error
        }
        // Told once the input is written, outside the input's savepoint: a
        // failure to read them back cannot undo what was stored.
        if summary.rejected > 0 { try tellStoredRejects(fileID: fileID, path: path) }
        onProgress?(input.size ?? 0, input.size, path)
        if let changed {
            // Stored and counted, but not the file as it is now: a failure
            // for this input (exit 1), never a silent success.
            failedInputs += 1
            onInputError(InputError.changedWhileRead(path, changed))
        }
        return summary
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
        let ids = try batch.clients.map { try store.clientID(meeting: $0.meeting, uid: $0.uid) }
        for context in contextsKept { try store.putConnectionContext(context) }
        buffered += batch.items
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
    private func seriesSlot(client: Int64) -> Int {
        if let index = seriesIndex[client] { return index }
        seriesIndex[client] = series.count
        series.append((ReportSeries(), EventSeries()))
        seriesClients.append(client)
        return series.count - 1
    }

    /// Raw bytes of distinct rejected texts stored per input; past this,
    /// new texts keep their reason, size and line numbers but not the bytes.
    public var rawBudgetPerInput = 16 << 20
    private var rawStored = (file: Int64(0), bytes: 0)

    private func recordReject(raw: [UInt8], size: Int, number: Int, reason: String, fileID: Int64, path: String) throws {
        if rawStored.file != fileID { rawStored = (fileID, 0) }
        let keep = rawStored.bytes + raw.count <= rawBudgetPerInput
        let text = try raw.withUnsafeBytes { try store.rejectText(reason: reason, raw: $0, size: size, keepRaw: keep) }
        if text.new && keep { rawStored.bytes += raw.count }
        try store.insertReject(file: fileID, line: number, text: text.id)
    }

    /// Tells `onReject` the rejects the store holds for `fileID`.
    private func tellStoredRejects(fileID: Int64, path: String) throws {
        try store.forEachReject(file: fileID) { line, reason in onReject(RejectedLine(file: path, line: line, reason: reason)) }
    }

    /// Another ingest of the same content committed progress since our last
    /// commit (two `mqa ingest` of one file at once).
    struct IngestedElsewhere: Error {}

    /// Checks, inside the open transaction, that the file's progress is still
    /// the one this ingest last wrote; otherwise another process is
    /// ingesting the same content and this one stands down (its open batch
    /// rolled back), so that no line is stored or rejected twice.
    private func claim(fileID: Int64, written: Int) throws {
        if try store.linesDone(file: fileID) != written { throw IngestedElsewhere() }
    }

    /// Writes the buffered reports and the file's progress, inside the open
    /// transaction, so a commit always holds a whole prefix of the file.
    /// Without `linesDone` the progress is left to the caller to record.
    private func checkpoint(
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
    private func storeCarried() throws {
        guard let held = carried else { return }
        _ = try store.storePrepared(held.series, client: held.client)
        carried = nil
    }

    /// Inserts the series `encoding` holds, in order: those encoded by now,
    /// or with `all` every one, waiting for the encoder.
    private func storeEncoded(all: Bool) throws {
        while let first = encoding.first, all || first.job.isDone {
            _ = try store.storePrepared(try first.job.wait(), client: first.client)
            encoding.removeFirst()
        }
    }

    /// Inserts `client`'s series being encoded, if any.
    private func storeEncoded(client: Int64) throws {
        guard let k = encoding.firstIndex(where: { $0.client == client }) else { return }
        _ = try store.storePrepared(try encoding[k].job.wait(), client: client)
        encoding.remove(at: k)
    }

    private func clearBuffers() {
        series.removeAll()
        seriesClients.removeAll()
        preparedSeries.removeAll()
        seriesIndex.removeAll()
        buffered = 0
    }

    @inline(__always)
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in line where !(b == 0x20 || b == 0x09 || b == 0x0D) { return false }
        return true
    }

    /// The 128-bit fingerprint by which stores of schema version 1 recorded
    /// a file (over its raw bytes), to recognise their finished records.
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

/// What each parsing thread keeps from one input to the next: its chunk
/// codec (its zstd contexts are worth keeping) and the sizes of its last
/// input.
final class ParseThreadState {
    var codec = ChunkCodec()
    /// The items of the thread's last one-batch input: the next input's
    /// batch starts with room for as many (logs come as many files of
    /// about one size). Grown from nothing, a batch's arrays were
    /// reallocated about 80 times an input.
    var lastBatch = BatchSizes()

    static var current: ParseThreadState {
        let slots = Thread.current.threadDictionary
        if let held = slots["mqa.parse-thread-state"] as? ParseThreadState { return held }
        let made = ParseThreadState()
        slots["mqa.parse-thread-state"] = made
        return made
    }
}

