import MQABase
import MQAModel
import MQAStore

/// How a stats dump is ingested, on its parsing thread: read once (an
/// rtcstats dump line by line, a webrtc-internals document whole), told by
/// an identity of its content, format, `--meeting` and name, converted to
/// event lines, and passed through the same batches as a log's lines.
enum DumpReading {
    /// The parsing thread's work for a stats dump: read it (once, hashed),
    /// carry out `plan`, convert it, and pass the produced event lines
    /// through the same batches as a log's (`Output`).
    ///
    /// A webrtc-internals dump's connections are handed on as each is
    /// converted, so that the writer stores them meanwhile; their batches
    /// hold the commit until the whole document has proved valid.
    static func run(
        _ reader: LineReader, format: InputFormat, meeting: String?, plan: ReadPlan, nowMs: Int64, into queue: BatchQueue
    ) throws {
        if format == .rtcstats {
            try runLines(reader, meeting: meeting, plan: plan, nowMs: nowMs, into: queue)
        } else {
            try runDocument(reader, meeting: meeting, plan: plan, nowMs: nowMs, into: queue)
        }
    }

    /// A webrtc-internals document, converted as it is read (one
    /// connection's object held at a time). Read afresh, each connection's
    /// events are handed on as it is converted, in batches that hold the
    /// commit until the whole document has proved valid (the digest comes
    /// with the last). A resumed one keeps its events until the digest
    /// says whether the dump is the one a killed run began; one to compare
    /// with a finished record is hashed first, and read again only when it
    /// differs.
    private static func runDocument(
        _ first: LineReader, meeting: String?, plan: ReadPlan, nowMs: Int64, into queue: BatchQueue
    ) throws {
        let path = first.path
        guard let (reader, plan) = try compareFirst(first, format: .webrtcInternals, meeting: meeting, plan: plan, queue: queue) else { return }
        var fresh = false
        if case .fresh = plan { fresh = true }
        let out = Output(reader: reader, digest: "", skipThrough: 0, nowMs: nowMs, queue: queue)
        var kept: [UInt8] = []
        let context = ImportContext(
            meeting: meeting, name: WebRTCImport.baseName(path), file: path,
            emit: fresh ? { try out.add($0, holding: true) } : { kept.append(contentsOf: $0) }, nowMs: nowMs)
        let document = WebRTCInternalsImporter.DocumentReader(WebRTCInternalsImporter(context: context))
        let conversion: Conversion
        do {
            try reader.forEachContentChunk { piece in
                if queue.isCancelled { throw Cancelled() }
                try document.feed(piece.assumingMemoryBound(to: UInt8.self))
            }
            conversion = try document.finish()
        } catch let error as ImportError {
            throw InputError.invalidDump(path, error.reason)
        }
        let digest = identity(content: reader.finalDigest ?? "", format: .webrtcInternals, meeting: meeting, path: path)
        if fresh {
            out.digest = digest
            try out.finish(conversion)
            return
        }
        guard let skipThrough = try decide(plan, digest: digest, path: path, reader: reader, queue: queue) else { return }
        let resumed = Output(reader: reader, digest: digest, skipThrough: skipThrough, nowMs: nowMs, queue: queue)
        try kept.withUnsafeBufferPointer { try resumed.add($0, holding: true) }
        try resumed.finish(conversion)
    }

    /// An rtcstats dump, converted line by line as it is read (never held
    /// whole). Its events come out at the end (its rejects are numbered
    /// before them), once the digest that decides a resume is known. A
    /// dump to compare with a finished record is hashed first, and read
    /// again only when it differs.
    private static func runLines(
        _ first: LineReader, meeting: String?, plan: ReadPlan, nowMs: Int64, into queue: BatchQueue
    ) throws {
        let path = first.path
        guard let (reader, plan) = try compareFirst(first, format: .rtcstats, meeting: meeting, plan: plan, queue: queue) else { return }
        let importer = RTCStatsImporter(context: ImportContext(
            meeting: meeting, name: WebRTCImport.baseName(path), file: path, emit: nil, nowMs: nowMs))
        var progress = RTCStatsImporter.Progress()
        let conversion: Conversion
        do {
            try reader.forEachContentLine { line in
                if queue.isCancelled { throw Cancelled() }
                try importer.take(line, into: &progress)
            }
            conversion = try importer.finish(&progress)
        } catch let error as ImportError {
            throw InputError.invalidDump(path, error.reason)
        }
        let digest = identity(content: reader.finalDigest ?? "", format: .rtcstats, meeting: meeting, path: path)
        guard let skipThrough = try decide(plan, digest: digest, path: path, reader: reader, queue: queue) else { return }
        try Output(reader: reader, digest: digest, skipThrough: skipThrough, nowMs: nowMs, queue: queue).finish(conversion)
    }

    /// A dump to compare with a finished record is hashed first (nil: the
    /// same, skipped) and, when it differs, read afresh from a new reader.
    private static func compareFirst(
        _ reader: LineReader, format: InputFormat, meeting: String?, plan: ReadPlan, queue: BatchQueue
    ) throws -> (LineReader, ReadPlan)? {
        guard case .compare = plan else { return (reader, plan) }
        try reader.forEachContentChunk { _ in if queue.isCancelled { throw Cancelled() } }
        let digest = identity(content: reader.finalDigest ?? "", format: format, meeting: meeting, path: reader.path)
        guard try decide(plan, digest: digest, path: reader.path, reader: reader, queue: queue) != nil else { return nil }
        return (try LineReader(path: reader.path), .fresh)
    }

    /// Carries out `plan` for a dump of identity `digest`: nil when it is
    /// the content already ingested (skipped), else the produced lines to
    /// skip (those a resumed run stored). A changed dump restarts.
    private static func decide(_ plan: ReadPlan, digest: String, path: String, reader: LineReader, queue: BatchQueue) throws -> Int? {
        switch plan {
        case .fresh:
            return 0
        case .compare(let expected):
            let same = expected.hasPrefix("sha256:")
                ? digest == expected && reader.changedWhileReading() == nil : try Ingester.hashFile(path) == expected
            if same {
                _ = queue.put(.skip)
                return nil
            }
            guard queue.put(.restart) else { throw Cancelled() }
            return 0
        case .resume(let after, let prefix):
            if after == 0 || prefix == digest { return after }
            guard queue.put(.restart) else { throw Cancelled() }
            return 0
        }
    }

    /// The produced lines of a dump, through the same batches as a log's
    /// (validation, dedupe and resume apply unchanged). The resume point
    /// counts the dump's rejects, then its produced lines; every
    /// checkpoint's prefix digest is the whole dump's, so a dump resumes
    /// only when it is unchanged.
    private final class Output {
        let reader: LineReader
        /// Set once known: a document read afresh hands its events on
        /// before the end, in batches that hold the commit (no checkpoint
        /// records their digest).
        var digest: String
        let skipThrough: Int
        let queue: BatchQueue
        let batches: BatchParserBox
        var number = 0

        init(reader: LineReader, digest: String, skipThrough: Int, nowMs: Int64, queue: BatchQueue) {
            (self.reader, self.digest, self.skipThrough, self.queue) = (reader, digest, skipThrough, queue)
            batches = BatchParserBox(nowMs: nowMs)
        }

        func put(_ full: ParsedBatch?, holding: Bool) throws {
            guard let full else { return }
            full.bytesRead = reader.bytesRead
            full.holdsCommit = holding
            full.prefixDigest = digest
            guard queue.put(.batch(full)) else { throw Cancelled() }
        }

        func add(_ lines: UnsafeBufferPointer<UInt8>, holding: Bool) throws {
            var start = 0
            while let newline = lines[start...].firstIndex(of: 0x0A) {
                number += 1
                if number > skipThrough {
                    try put(batches.parser.add(UnsafeBufferPointer(rebasing: lines[start..<newline]), number: number, oversize: nil), holding: holding)
                }
                start = newline + 1
            }
        }

        /// The rejects, then the lines the conversion kept, then the end.
        func finish(_ conversion: Conversion) throws {
            for reject in conversion.rejects {
                number += 1
                if number <= skipThrough { continue }
                try put(batches.parser.addReject(line: reject.line, reason: reject.reason, raw: reject.raw, size: reject.size, number: number),
                        holding: false)
            }
            try conversion.lines.withUnsafeBufferPointer { try add($0, holding: false) }
            let last = batches.parser.take()
            last.bytesRead = reader.bytesRead
            last.prefixDigest = digest
            last.conversion = ConversionCounts(conversion)
            guard queue.put(.batch(last)) else { throw Cancelled() }
            _ = queue.put(.end(digest: digest, changed: reader.changedWhileReading()))
        }
    }

    /// A dump's identity: the SHA-256 of its content digest, format,
    /// `--meeting` and file name.
    static func identity(content: String, format: InputFormat, meeting: String?, path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let key = [content, format.rawValue, meeting ?? "", name].joined(separator: "\u{0}")
        return Array(key.utf8).withUnsafeBytes { SHA256.text(SHA256.digest($0)) }
    }
}
