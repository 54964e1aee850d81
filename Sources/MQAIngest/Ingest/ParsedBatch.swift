import Foundation
import MQABase
import MQAModel
import MQAStore

/// A run of parsed lines of one input, handed from the parsing thread to
/// the writing thread. Flat arrays, so a batch costs a few allocations, not
/// one per line; clients are named by an index into `clients`, resolved to
/// store ids by the writer (only it touches the database).
final class ParsedBatch {
    var clients: [(meeting: [UInt8], uid: [UInt8])] = []
    var reportClient: [Int32] = []
    var reportTs: [Int64] = []
    /// Five values per report: loss, rtt, jitter, bitrate, mos.
    var reportValues: [DecimalNumber] = []
    var eventClient: [Int32] = []
    var eventTs: [Int64] = []
    var eventKind: [EventKind] = []
    /// Per event, how many of its client's reports the batch held before it.
    var eventReportsLogged: [UInt32] = []
    /// Per client, its reports in the batch so far.
    var clientReports: [UInt32] = []
    /// Canonical payloads back to back; event i ends at `payloadEnds[i]`.
    var payloadBytes: [UInt8] = []
    var payloadEnds: [Int] = []
    /// Rejected lines: number, reason, the raw bytes (the whole line; the
    /// first 4 KiB of one over 1 MiB, which the reader never holds) and
    /// the line's full length.
    var rejects: [(line: Int, reason: String, raw: [UInt8], size: Int)] = []
    /// The raw bytes `rejects` and `contexts` hold: a batch ends once they
    /// and the payloads reach `targetPayloadBytes`.
    var rawBytes = 0
    /// Connection contexts read from `mqa_connection_context` lines (an
    /// export of a store made from dumps), stored by the writer.
    /// `known`: its client had an event earlier in this batch.
    var contexts: [(line: Int, context: ConnectionContext, raw: [UInt8], size: Int, known: Bool)] = []
    /// Non-blank lines and ignored lines in this batch.
    var lines = 0
    var ignored = 0
    /// The last line number this batch covers (the resume point once stored).
    var lastLine = 0
    /// Input bytes read when the batch closed, for progress.
    var bytesRead = 0
    /// SHA-256 of the input's content through `lastLine`: stored with the
    /// resume point, so that a resumed ingest can check that the file still
    /// starts with what was stored.
    var prefixDigest = ""
    /// On a dump's last batch: what the conversion found.
    var conversion: ConversionCounts?
    /// A dump's batch sent while its conversion still runs: no commit may
    /// follow it, since the rest of the dump can still prove it invalid
    /// (a dump is rejected whole).
    var holdsCommit = false
    /// Per client (by index into `clients`), its series made ready on the
    /// parsing thread; nil when the writer is to do that. The flat arrays
    /// are emptied then (the series hold the items).
    var prepared: [PreparedSeries]?
    /// Reports and events in the batch.
    var items: Int { prepared.map { $0.reduce(0) { $0 + $1.reportCount + $1.eventCount } } ?? reportTs.count + eventTs.count }

    /// The bytes of its events' payloads.
    var payloadByteCount: Int { prepared.map { $0.reduce(0) { $0 + $1.payloadBytes } } ?? payloadBytes.count }

    static let targetLines = 8192
    /// A batch also ends once its events' payloads reach this: 8,192 lines
    /// of up to 1 MiB each would be 8 GiB, where ordinary lines make
    /// batches of well under 1 MB of payload.
    static let targetPayloadBytes = 4 << 20

    /// How many items the batch holds.
    var sizes: BatchSizes {
        BatchSizes(reports: reportTs.count, events: eventTs.count, payloadBytes: payloadBytes.count)
    }

    /// Makes room for `sizes` and a quarter more, so that a batch like
    /// the one measured fills its arrays without growing them.
    func reserve(_ sizes: BatchSizes) {
        let reports = min(sizes.reports + sizes.reports / 4, ParsedBatch.targetLines)
        let events = min(sizes.events + sizes.events / 4, ParsedBatch.targetLines)
        reportClient.reserveCapacity(reports)
        reportTs.reserveCapacity(reports)
        reportValues.reserveCapacity(reports * ReportColumn.allCases.count)
        eventClient.reserveCapacity(events)
        eventTs.reserveCapacity(events)
        eventKind.reserveCapacity(events)
        eventReportsLogged.reserveCapacity(events)
        payloadEnds.reserveCapacity(events)
        payloadBytes.reserveCapacity(min(sizes.payloadBytes + sizes.payloadBytes / 4, 1 << 22))
    }

    /// Walks the batch's items in order, by client (an index into
    /// `clients`): reports a run of one client's at a time (a batch is
    /// mostly such runs, moved at once), events one at a time with the
    /// range of their payload in `payloadBytes`.
    func forEachRun(reports: (_ client: Int, _ range: Range<Int>) -> Void,
                    events: (_ client: Int, _ index: Int, _ payload: Range<Int>) -> Void) {
        var i = 0
        while i < reportTs.count {
            let client = reportClient[i]
            var end = i + 1
            while end < reportTs.count && reportClient[end] == client { end += 1 }
            reports(Int(client), i..<end)
            i = end
        }
        var start = 0
        for i in eventTs.indices {
            events(Int(eventClient[i]), i, start..<payloadEnds[i])
            start = payloadEnds[i]
        }
    }


    /// Groups the batch's reports and events by client and makes each
    /// client's series ready (`PreparedSeries`), the writer's work for a
    /// client whose input is this one batch. The clients of `joins` run on
    /// from the input before or into the next: they are left unencoded
    /// for the writer to join; `continuing` is the one that runs on.
    func prepare(codec: inout ChunkCodec, joins: Continuation = Continuation()) throws {
        var reports = [ReportSeries](repeating: ReportSeries(), count: clients.count)
        var events = [EventSeries](repeating: EventSeries(), count: clients.count)
        forEachRun(
            reports: { reports[$0].append($1, ts: reportTs, values: reportValues) },
            events: {
                events[$0].append(ts: eventTs[$1], kind: eventKind[$1], payload: payloadBytes[$2], reportsLogged: eventReportsLogged[$1])
            })
        prepared = try clients.indices.map { c in
            var p = try PreparedSeries(
                reports: reports[c], events: events[c], codec: &codec, encode: c != joins.fromBefore && c != joins.intoNext)
            p.continues = c == joins.intoNext
            return p
        }
        // Held until the writer stores the batch, maybe 32 MB of inputs
        // later: only once.
        (reportClient, reportTs, reportValues) = ([], [], [])
        (eventClient, eventTs, eventKind, payloadBytes, payloadEnds) = ([], [], [], [], [])
        (eventReportsLogged, clientReports) = ([], [])
    }
}

/// The items of a `ParsedBatch`, to make room for as many in another.
struct BatchSizes {
    var reports = 0
    var events = 0
    var payloadBytes = 0
}

/// Parses lines into batches: the work that runs off the writer's thread.
/// Not copyable: it holds the line parser.
struct BatchParser: ~Copyable {
    private var parser: LineParser
    private var batch = ParsedBatch()
    private var clientIndex: [EventStore.ClientKey: Int32] = [:]
    /// The client of the batch's last event (-1 when a new batch starts),
    /// and the parser's `clientGeneration` then.
    private var lastIndex: Int32 = -1
    private var lastGeneration = 0

    init(nowMs: Int64) { parser = LineParser(nowMs: nowMs) }

    /// Makes room in the batch being filled (`ParsedBatch.reserve`).
    func reserve(_ sizes: BatchSizes) { batch.reserve(sizes) }

    /// Adds one line; returns a full batch when one is ready.
    mutating func add(_ line: UnsafeBufferPointer<UInt8>, number: Int, oversize: Int?) -> ParsedBatch? {
        if oversize == nil && Ingester.isBlank(line) { return nil }
        batch.lines += 1
        batch.lastLine = number
        let outcome: LineOutcome =
            oversize.map { .rejected("line longer than 1 MiB (\($0) bytes)") } ?? parser.parse(line)
        switch outcome {
        case .rejected(let reason):
            // The raw text whole (event-log.md); of a line over the limit,
            // which the reader may hand over cut or whole, its first 4 KiB.
            let raw = oversize == nil && line.count <= LineParser.maxLineBytes ? Array(line) : Array(line.prefix(4096))
            batch.rejects.append((number, reason, raw, oversize ?? line.count))
            batch.rawBytes += raw.count
        case .ignored:
            if parser.eventIs(ConnectionContext.eventName, in: line) {
                // mqa's own line for what a dump's stats add: read, not an
                // event of the contract (counted with the ignored lines).
                switch ConnectionContext.parseLine(line, meeting: parser.meeting, uid: parser.uid) {
                case .success(let context):
                    let known = clientIndex[EventStore.ClientKey(meeting: parser.meeting, uid: parser.uid)] != nil
                    batch.contexts.append((number, context, Array(line), line.count, known))
                    batch.ignored += 1
                case .failure(let reject):
                    batch.rejects.append((number, reject.reason, Array(line), line.count))
                }
                batch.rawBytes += line.count
            } else {
                batch.ignored += 1
            }
        case .event:
            let client = clientIndexOfLastLine()
            if parser.kind == .qualityReport {
                batch.reportClient.append(client)
                batch.reportTs.append(parser.ts)
                batch.reportValues.append(parser.loss)
                batch.reportValues.append(parser.rtt)
                batch.reportValues.append(parser.jitter)
                batch.reportValues.append(parser.bitrate)
                batch.reportValues.append(parser.mos)
                batch.clientReports[Int(client)] += 1
            } else {
                batch.eventClient.append(client)
                batch.eventReportsLogged.append(batch.clientReports[Int(client)])
                batch.eventTs.append(parser.ts)
                batch.eventKind.append(parser.kind)
                parser.appendCanonicalPayload(of: line, to: &batch.payloadBytes)
                batch.payloadEnds.append(batch.payloadBytes.count)
            }
        }
        return batch.lines >= ParsedBatch.targetLines || batch.payloadBytes.count + batch.rawBytes >= ParsedBatch.targetPayloadBytes
            ? take() : nil
    }

    /// Records an unusable line of a dump: `number` is its place in the
    /// converted input (the resume point), `line` its line in the dump.
    mutating func addReject(line: Int, reason: String, raw: [UInt8], size: Int, number: Int) -> ParsedBatch? {
        batch.lines += 1
        batch.lastLine = number
        batch.rejects.append((line, reason, raw, size))
        return batch.lines >= ParsedBatch.targetLines ? take() : nil
    }

    /// The first client of the batch (in the order of their lines).
    var firstClient: EventStore.ClientKey? {
        batch.clients.first.map { EventStore.ClientKey(meeting: $0.meeting, uid: $0.uid) }
    }

    /// The index in `clients` of the client of the batch's last event (-1
    /// for none).
    var lastClient: Int { Int(lastIndex) }

    /// The batch so far (possibly empty), and a fresh one started.
    mutating func take() -> ParsedBatch {
        let full = batch
        batch = ParsedBatch()
        clientIndex.removeAll(keepingCapacity: true)
        lastIndex = -1
        return full
    }

    private mutating func clientIndexOfLastLine() -> Int32 {
        // The generation moves with any line whose ids differ, a rejected
        // line's too: then the lookup below finds the client.
        if lastIndex >= 0 && parser.clientGeneration == lastGeneration { return lastIndex }
        lastGeneration = parser.clientGeneration
        let key = EventStore.ClientKey(meeting: parser.meeting, uid: parser.uid)
        if let index = clientIndex[key] {
            lastIndex = index
        } else {
            lastIndex = Int32(batch.clients.count)
            clientIndex[key] = lastIndex
            batch.clients.append((parser.meeting, parser.uid))
            batch.clientReports.append(0)
        }
        return lastIndex
    }
}

/// A `BatchParser` in a class, for closures that escape (a dump importer's
/// `emit`, which adds each converted connection's lines): they cannot
/// capture a noncopyable value.
final class BatchParserBox {
    var parser: BatchParser

    init(nowMs: Int64) { parser = BatchParser(nowMs: nowMs) }
}

/// A bounded hand-over between the parsing thread and the writer: the
/// parser runs at most `capacity` batches ahead, so memory stays bounded.
final class BatchQueue {
    enum Item {
        /// The input's format, first of all.
        case format(InputFormat)
        case batch(ParsedBatch)
        /// The input ended: its content digest, and why it is not what it
        /// was when opened (nil when it did not change while read).
        case end(digest: String, changed: String?)
        /// The input is the same content as its finished record: nothing to do.
        case skip
        /// The record being resumed (or compared with) is not this content:
        /// the batches that follow are the whole input, from line 1.
        case restart
        case failed(Error)
    }

    private let condition = NSCondition()
    /// Each with its batch's payload bytes, as counted in `queuedBytes`.
    private var items: [(item: Item, bytes: Int)] = []
    /// The payload bytes of the batches in `items`.
    private var queuedBytes = 0
    private var cancelled = false
    private let capacity: Int
    /// Past this many payload bytes queued, a parser waits even below
    /// `capacity`: batches of large payloads (`targetPayloadBytes` each)
    /// wait one at a time. Ordinary batches hold well under 1 MB.
    static let byteCapacity = ParsedBatch.targetPayloadBytes

    init(capacity: Int = 4) { self.capacity = capacity }

    /// Blocks while full; returns false when the writer gave up.
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while (items.count >= capacity || (!items.isEmpty && queuedBytes >= BatchQueue.byteCapacity)) && !cancelled {
            condition.wait()
        }
        if cancelled { return false }
        let bytes = BatchQueue.payloadBytes(item)
        queuedBytes += bytes
        items.append((item, bytes))
        condition.broadcast()
        return true
    }

    private static func payloadBytes(_ item: Item) -> Int {
        if case .batch(let batch) = item { return batch.payloadByteCount }
        return 0
    }

    /// The first item, taken; the caller holds the lock.
    private func removeFirst() -> Item {
        let (item, bytes) = items.removeFirst()
        queuedBytes -= bytes
        return item
    }

    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        condition.wait(yieldingFirstUntil: { !items.isEmpty })
        let item = removeFirst()
        condition.broadcast()
        return item
    }

    /// Like `take`, but when nothing has come after `idleAfter` seconds,
    /// calls `whileWaiting` once (without the queue's lock held) before
    /// waiting on: the writer commits there, so that it holds no write
    /// lock while an input is slow to come.
    func take(idleAfter seconds: Double, whileWaiting: () throws -> Void) throws -> Item {
        condition.lock()
        _ = condition.wait(yieldingFirstUntil: { !items.isEmpty }, deadline: Date(timeIntervalSinceNow: seconds))
        if items.isEmpty {
            condition.unlock()
            try whileWaiting()
            condition.lock()
        }
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = removeFirst()
        condition.broadcast()
        return item
    }

    /// The writer failed: release a parser blocked in `put`.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        queuedBytes = 0
        condition.broadcast()
        condition.unlock()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }
}

/// Stops the parser's line loop when the writer has failed.
struct Cancelled: Error {}
