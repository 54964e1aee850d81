import MQABase
import MQAModel
import MQAStore

/// How a stats dump is ingested: read whole on its parsing thread, told by
/// an identity of its content, format, `--meeting` and name, converted to
/// event lines, and passed through the same batches as a log's lines.
enum DumpReading {
    /// The parsing thread's work for a stats dump: read it whole (once,
    /// hashed), carry out `plan`, convert it, and pass the produced event
    /// lines through the same batches as a log's (validation, dedupe and
    /// resume apply unchanged). The resume point counts the dump's rejects,
    /// then its produced lines; every checkpoint's prefix digest is the
    /// whole dump's, so a dump resumes only when it is unchanged.
    ///
    /// A webrtc-internals dump's connections are handed on as each is
    /// converted, so that the writer stores them meanwhile; their batches
    /// hold the commit until the whole document has proved valid.
    static func run(
        _ reader: LineReader, format: InputFormat, meeting: String?, plan: ReadPlan, nowMs: Int64, into queue: BatchQueue
    ) throws {
        let path = reader.path
        try reader.withContent { content in
            // The converted events depend on the file's name and --meeting
            // as well as its bytes (they name the meeting and clients), so
            // both are part of the identity: the same dump under another
            // name is another meeting, never "already ingested".
            let digest = identity(content: reader.finalDigest ?? "", format: format, meeting: meeting, path: path)
            var skipThrough = 0
            switch plan {
            case .fresh:
                break
            case .compare(let expected):
                let same = expected.hasPrefix("sha256:")
                    ? digest == expected && reader.changedWhileReading() == nil : try Ingester.hashFile(path) == expected
                if same {
                    _ = queue.put(.skip)
                    return
                }
                guard queue.put(.restart) else { throw Cancelled() }
            case .resume(let after, let prefix):
                if after == 0 || prefix == digest {
                    skipThrough = after
                } else {
                    guard queue.put(.restart) else { throw Cancelled() }
                }
            }
            let batches = BatchParserBox(nowMs: nowMs)
            var number = 0
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
            // rtcstats rejects are numbered before its lines, so its lines wait for the end.
            let streaming = format == .webrtcInternals
            let conversion: Conversion
            do {
                conversion = try WebRTCImport.convert(
                    content, format: format, fileName: path, meeting: meeting,
                    emit: streaming ? { try add($0, holding: true) } : nil)
            } catch let error as ImportError {
                throw InputError.invalidDump(path, error.reason)
            }
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
