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
    let nowMs: Int64
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
    public internal(set) var failedInputs = 0
    /// The inputs' content format; nil tells each input's by its content.
    public var inputFormat: InputFormat?
    /// The meeting id for events converted from dumps (`--meeting`).
    public var meeting: String?

    /// Events waiting for the next checkpoint, per client: their reports
    /// and their other events.
    var series: [(reports: ReportSeries, events: EventSeries)] = []
    var seriesClients: [Int64] = []
    /// Clients whose series came made ready from the parsing thread.
    var preparedSeries: [(client: Int64, series: PreparedSeries)] = []
    var seriesIndex: [Int64: Int] = [:]
    var buffered = 0
    /// The events' payload bytes of those items: a checkpoint comes once
    /// they reach `maxBufferedPayloadBytes`. Counted in items alone, a
    /// log of 300 lines of 1 MB titles was held whole, 768 MB.
    var bufferedPayloadBytes = 0
    static let maxBufferedPayloadBytes = 32 << 20

    /// Inputs share write transactions: one commits after `commitEvery`
    /// lines or this many inputs, whichever comes first. A commit per
    /// input was a fifth of the time of an ingest of many small logs
    /// (each commit writes the pages it touched to the WAL). Each input
    /// is a savepoint within, so a failing input undoes only itself.
    static let inputsPerCommit = 256
    /// Inputs parsed ahead of the writer: while those ahead hold under
    /// `bytesAhead` of input, up to `maxInputsAhead`, and always
    /// `alwaysAhead`. Large
    /// files are not started six at a time: each holds batches and chunks
    /// in the making, and eight files of 30 lines of 1 MB titles took an
    /// ingest to 1.29 GB that way (366 MB now). Small files (the usual
    /// logs) are as many ahead as before; `inputsAhead` + 1 threads parse.
    /// Logs come as many small files, and six of them (~5,000 lines) kept
    /// the parsers busy for a few milliseconds only: while the writer spent
    /// ~0.1 s encoding and storing a commit's clients, a core sat idle.
    /// On 1,777 files (4 runs each): wall 1.05 s with 6 ahead, 0.93 s with
    /// 4 or 16 MB ahead, 0.95 s with 64 MB (peak RSS 44, 52, 63, 79 MB).
    /// Once the parsing threads encoded the chunks too (`PreparedSeries`),
    /// more room paid again: 0.758 s with 8 MB, 0.735 s with 16, 0.724 s
    /// with 32 (peak RSS 66, 73, 87 MB).
    static let inputsAhead = 6
    /// Inputs parsed ahead whatever their size: one per core the writer
    /// leaves (one on 2 cores), up to `inputsAhead`, so that a machine of
    /// many cores still parses that many large files at once.
    static let alwaysAhead = max(1, min(inputsAhead, ProcessInfo.processInfo.activeProcessorCount - 1))
    static let maxInputsAhead = 256
    static let bytesAhead = 32 << 20
    /// Where `prepare` runs each input's parsing (one per public `ingest`).
    var parsing: ParseThreads?
    /// How consecutive inputs begin and end (`ContinuationBoard`), for an
    /// ingest of several.
    var board: ContinuationBoard?
    /// A client's series held back at the end of the input that gave it,
    /// as its log goes on in the next input: stored joined with the next
    /// piece, or alone before anything else is stored or committed. Its
    /// items are counted in the input that gave them.
    var carried: (client: Int64, series: PreparedSeries)?
    /// `carried` as the input being written found it: what an undone input
    /// puts back.
    var carriedBeforeInput: (client: Int64, series: PreparedSeries)?
    /// Series the writer made (a log's pieces joined) being encoded on the
    /// encoder's thread, in the order given: each is inserted once it is
    /// encoded, before anything else of its client is stored or looked up,
    /// and all of them before a commit. Their items were counted in the
    /// input that gave them.
    var encoding: [(client: Int64, job: EncodingJob)] = []
    /// `encoding` as the input being written found it: what an undone input
    /// puts back (whatever of it the input inserted was undone with it).
    var encodingBeforeInput: [(client: Int64, job: EncodingJob)] = []
    /// Where `encoding` runs (one per `ingest(paths:)`, with `board`).
    var encoder: SeriesEncoder?
    /// The most a held-back series holds, in items and in events' payload
    /// bytes: a client of more is stored.
    static let maxCarried = 8 * EventStore.chunkCapacity
    static let maxCarriedPayloadBytes = 4 * EventStore.chunkPayloadBytes
    /// Whether a client's log in consecutive inputs is joined before it is
    /// encoded (`ContinuationBoard`); off, each piece is encoded and the
    /// pieces' chunks rewritten (tests compare the two).
    package var joinsPieces = true
    /// Pieces held back for the next input, and joined to the one before
    /// (tests).
    var piecesHeld = 0
    var piecesJoined = 0
    /// Series given to the encoder's thread (tests).
    var seriesEncodedAside = 0
    var linesSinceCommit = 0
    var inputsSinceCommit = 0
    /// What the commits of this ingest hold (the summary an ingest that
    /// stops early reports), what the open transaction holds on top, and
    /// the part of the current input that its own checkpoints committed.
    public internal(set) var committedSummary = IngestSummary()
    /// Inputs read whole whose last part a commit holds; those read whole
    /// since the last commit (`wholeSinceCommit`) are not yet among them.
    /// After a store failure every other input is told as failed.
    public internal(set) var committedInputs = 0
    var wholeSinceCommit = 0
    /// `files` records finished (their hash written) since the last
    /// commit: an input skipped as the same content as one of them is not
    /// stored until that commit.
    var finishedSinceCommit: Set<Int64> = []
    /// Set by `write` for an input it skipped: whether the record whose
    /// content it repeats is committed (then the input is stored whole).
    var skipIsCommitted = false
    var uncommitted = IngestSummary()
    var inputCommitted: IngestSummary?
    /// Of the inputs in `uncommitted`, the parts their own checkpoints
    /// committed: stored even when the open transaction is lost.
    var uncommittedInputParts = IngestSummary()
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
    var summaries = SummaryScheduler(workers: nil)
    /// What this ingest's codecs encoded, for its summaries to take back
    /// (`RecentChunks`); set before the inputs' threads start.
    var recent: RecentChunks?
    /// Meetings handed to the summary worker during the inputs (tests).
    var summariesOffered: Int { summaries.offered }
    /// Stamps for stale meetings, one per transaction (see `markStale`):
    /// a summary worker only ever sees committed stamps, so those within
    /// one transaction need not differ.
    var stamps = SplitMix64(seed: UInt64(UInt32(truncatingIfNeeded: getpid())) << 32 ^ UInt64(DispatchTime.now().uptimeNanoseconds))
    var transactionStamp: Int64 = 2
    /// The meetings the open transaction marked stale (with
    /// `transactionStamp`): marking one again would write the same stamp.
    /// An UPDATE per client and input was 29k instructions, the writer's
    /// dearest statement per input.
    var staleMeetings: Set<Int64> = []
    /// Each client's meeting, as far as known: kept across commits, but
    /// not past a rollback, after which a client id may be given anew.
    var clientMeetings: [Int64: Int64] = [:]
    /// This ingester began the write transaction and has neither committed
    /// nor rolled it back. Should the store then have none open, SQLite
    /// gave it up after a failed statement (a full disk), possibly one
    /// whose error an input read ahead holds until its turn: what the
    /// transaction held is lost, and the ingest must stop, not begin anew
    /// and count it as stored.
    var transactionBegun = false

    public init(store: EventStore, nowMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) {
        self.store = store
        self.nowMs = nowMs
        transactions = store
    }

    /// The write transactions: the store's own; a test puts one that fails
    /// on cue in its place.
    package var transactions: IngestTransactions

    /// Ingests each input in turn; returns the summed summary. While one
    /// input is written, the next ones are already being parsed:
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
        // `next` is the first not prepared, and `bytes` their summed sizes
        // (decompressed, where the name and the file tell).
        var ahead: [Int: Result<PreparedInput, Error>] = [:]
        var next = 0
        var bytes = 0
        func size(_ r: Result<PreparedInput, Error>) -> Int { (try? r.get().expandedSize ?? 0) ?? 0 }
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
                    && (next - i <= Ingester.alwaysAhead || bytes < Ingester.bytesAhead)
                {
                    let prepared = Result { try prepare(path: paths[next], index: next) }
                    ahead[next] = prepared
                    bytes += size(prepared)
                    next += 1
                }
                inputCommitted = nil
                defer { board.forget(before: i) }
                // Written first: `write` may commit, and so change `uncommitted`.
                let failedBefore = failedInputs
                let written = try write(input)
                uncommitted = uncommitted + written
                // A skipped input (its content stored before) needs no
                // commit; one that failed inside `write` (it changed while
                // read) is no whole input.
                if failedInputs == failedBefore {
                    if written.skippedFiles > 0 && skipIsCommitted { committedInputs += 1 } else { wholeSinceCommit += 1 }
                }
                if let part = inputCommitted { uncommittedInputParts = uncommittedInputParts + part }
                inputCommitted = nil
                if linesSinceCommit >= commitEvery || inputsSinceCommit >= Ingester.inputsPerCommit { try commit() }
            } catch let error as InputError {
                failedInputs += 1
                // What its own checkpoints committed (a stream that broke
                // off after 100,000 lines) is stored: counted as stored, not
                // told as "nothing was stored".
                if let part = inputCommitted { committedSummary = committedSummary + part }
                inputCommitted = nil
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
    func startCounting() {
        committedSummary = IngestSummary()
        uncommitted = IngestSummary()
        uncommittedInputParts = IngestSummary()
        inputCommitted = nil
        committedInputs = 0
        wholeSinceCommit = 0
        finishedSinceCommit = []
    }

    /// The error that ends an ingest early, with what its commits hold.
    func stopped(by error: Error) -> IngestFailure {
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

    /// Raw bytes of distinct rejected texts stored per input; past this,
    /// new texts keep their reason, size and line numbers but not the bytes.
    public var rawBudgetPerInput = 16 << 20
    var rawStored = (file: Int64(0), bytes: 0)
}
