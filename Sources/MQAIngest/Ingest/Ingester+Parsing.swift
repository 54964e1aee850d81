#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQABase
import MQAModel
import MQAStore

// The parsing side: how each input is to be read (afresh, resumed or
// compared), and the parsing thread that turns its lines into batches.
extension Ingester {
    /// An input whose lines are being parsed on a parse thread into `queue`.
    struct PreparedInput {
        var path: String
        /// Its `files` row: the one being resumed, or a new one; 0 while it
        /// is compared with a finished record (created on `.restart`).
        var fileID: Int64
        /// The finished record it is compared with (plan `.compare`), else 0.
        var comparedID: Int64 = 0
        var resumeAfter: Int
        /// The counters so far (restored on resume).
        var summary: IngestSummary
        var queue: BatchQueue
        var size: Int?
        /// What it holds once decompressed (`LineReader.expandedSize`):
        /// what reading it ahead costs.
        var expandedSize: Int?
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
    func prepare(path: String, index: Int? = nil) throws -> PreparedInput {
        var handedToParser = false
        let slot = index.flatMap { i in board.map { BoardSlot(board: $0, input: i) } }
        defer { slot.map { $0.board.handedOut($0.input, parsed: handedToParser) } }
        var summary = IngestSummary()
        summary.files = 1
        var fileID: Int64 = 0
        var comparedID: Int64 = 0
        var resumeAfter = 0
        let reader = try LineReader(path: path)
        var plan = ReadPlan.fresh
        // Looked up and created inside a write transaction: two ingests of
        // the same file at once then queue on the write lock, and the second
        // sees the first one's row.
        try beginIfNeeded()
        let latest = reader.isRegularFile && path != "-" ? try store.latestFile(path: path) : nil
        let decision = ReadPlan.decide(latest)
        plan = decision.plan
        if case .compare = plan, let latest { comparedID = latest.id }
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
                let format = try forced ?? WebRTCImport.sniff(reader)
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
            path: path, fileID: fileID, comparedID: comparedID, resumeAfter: resumeAfter, summary: summary, queue: queue, size: reader.size,
            expandedSize: reader.expandedSize,
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
    static func run(_ reader: LineReader, plan: ReadPlan, nowMs: Int64, into queue: BatchQueue, board slot: BoardSlot? = nil) throws {
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
    struct PrefixMismatch: Error {}

    /// Parses `reader`'s lines after `skipThrough` into batches. With
    /// `expecting`, the content through line `skipThrough` must have that
    /// digest (checked before any batch is sent), else `PrefixMismatch`.
    static func parse(
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
