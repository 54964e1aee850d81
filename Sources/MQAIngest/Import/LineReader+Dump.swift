#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel
import MQAStore

/// Whole-content access for the dump importers, beside the line streaming.
extension LineReader {
    /// The first bytes of the decompressed content (up to about `limit`),
    /// without consuming anything: enough to tell the content's format.
    public func peekContent(limit: Int = 1 << 16) throws -> [UInt8] {
        try withPeekedContent(limit: limit) { Array($0) }
    }

    /// `peekContent` lent to `body`, without a copy of a plain input's
    /// bytes: valid in `body` only.
    public func withPeekedContent<R>(limit: Int = 1 << 16, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        let input = try readAhead(limit)
        guard compression != .none else { return try body(input.assumingMemoryBound(to: UInt8.self)) }
        let stream: StreamDecompressor = compression == .zstd ? ZstdStream() : GzipStream()
        var out = [UInt8](repeating: 0, count: limit)
        var produced = 0
        out.withUnsafeMutableBytes { output in
            var inPos = 0
            // A damaged stream is reported by the real read; here it only ends the peek.
            while inPos < input.count && produced < output.count {
                let before = (inPos, produced)
                do { try stream.decompress(input: input, inputPosition: &inPos, output: output, outputPosition: &produced) } catch { break }
                if before == (inPos, produced) { break }
            }
        }
        return try out.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<produced])) }
    }

    /// The whole decompressed content (hashed as it is read). A
    /// webrtc-internals dump is one JSON document, so it is held whole:
    /// memory is its decompressed size plus one read buffer, within
    /// `dumpLimits` (`InputError.overLimit` past them, before the content
    /// that would pass them is held).
    public func readAll() throws -> [UInt8] {
        try detectCompression()
        var content: [UInt8] = []
        if let size, compression == .none { content.reserveCapacity(min(size, dumpLimits.maxBytes) + 1) }
        try forEachContentChunk { content.append(contentsOf: $0) }
        return content
    }

    /// Calls `body` with each line of the decompressed content (without its
    /// `\n`; a last line without one too), as it is read: an rtcstats dump
    /// is converted line by line, so only the line being read is held (a
    /// line that spans two reads is put together in a buffer of its own).
    public func forEachContentLine(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var pending: [UInt8] = []
        try forEachContentChunk { chunk in
            guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var start = 0
            while start < chunk.count, let hit = memchr(base + start, 0x0A, chunk.count - start) {
                let nl = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                let line = UnsafeBufferPointer(start: base + start, count: nl - start)
                if pending.isEmpty {
                    try body(line)
                } else {
                    pending.append(contentsOf: line)
                    try pending.withUnsafeBufferPointer { try body($0) }
                    pending.removeAll(keepingCapacity: pending.count <= 1 << 20)
                }
                start = nl + 1
            }
            pending.append(contentsOf: UnsafeBufferPointer(start: base + start, count: chunk.count - start))
        }
        if !pending.isEmpty { try pending.withUnsafeBufferPointer { try body($0) } }
    }

    /// Calls `body` with the decompressed content, a read at a time, hashed
    /// as it goes (`finalDigest` once done), within `dumpLimits`: past
    /// `maxBytes` of content, or a compressed stream expanding past its
    /// ratio, `InputError.overLimit` before `body` sees the bytes that
    /// passed it.
    func forEachContentChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try detectCompression()
        let limits = dumpLimits
        let chunk = 1 << 20
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { raw.deallocate() }
        var total = 0
        func hand(_ bytes: UnsafeRawBufferPointer) throws {
            hashContent(bytes)
            try body(bytes)
        }
        guard compression != .none else {
            // Known before reading: refuse at once rather than read it all.
            if let size, size > limits.maxBytes { throw overLimit(size: size) }
            while true {
                let n = try readRaw(raw)
                if n == 0 { break }
                // A regular file that grew past the limit while read, or a pipe.
                total += n
                if total > limits.maxBytes { throw overLimit(size: nil) }
                try hand(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
            }
            finishContentDigest()
            return
        }
        let stream: StreamDecompressor = compression == .zstd ? ZstdStream() : GzipStream()
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { out.deallocate() }
        let maxRatio = limits.maxRatio(compression)
        var consumed = 0  // compressed bytes decompressed so far
        var sawInput = false
        while true {
            let n = try readRaw(raw)
            if n == 0 {
                if sawInput && !stream.atFrameBoundary {
                    throw InputError.badCompression(path, "\(compression.name) stream is damaged or truncated: unexpected end of data")
                }
                finishContentDigest()
                return
            }
            sawInput = true
            var inPos = 0
            repeat {
                var outPos = 0
                let before = inPos
                do {
                    try stream.decompress(
                        input: UnsafeRawBufferPointer(rebasing: raw[0..<n]), inputPosition: &inPos, output: out, outputPosition: &outPos)
                } catch {
                    throw InputError.badCompression(path, "\(compression.name) stream is damaged or truncated: \(error)")
                }
                consumed += inPos - before
                // Checked before the bytes are handed on: a bomb never
                // expands to more than the ratio floor (plus one buffer).
                total += outPos
                if total > limits.maxBytes { throw overLimit(size: nil) }
                if total > limits.ratioFloor && total > maxRatio * max(consumed, 1) {
                    throw InputError.overLimit(
                        path,
                        "\(compression.name) content expands more than \(maxRatio):1 (\(LineReader.sizeText(total)) from \(consumed) compressed bytes), "
                            + "the limit for a compressed stats dump past \(LineReader.sizeText(limits.ratioFloor)) (real dumps measure up to "
                            + "\(limits.highestRealRatio(compression)):1): refused as a decompression bomb; decompress it first to ingest it anyway")
                }
                try hand(UnsafeRawBufferPointer(rebasing: out[0..<outPos]))
                if outPos == 0 && inPos == before {
                    throw InputError.badCompression(path, "\(compression.name) stream is damaged: no progress")
                }
            } while inPos < n
        }
    }

    private func overLimit(size: Int?) -> InputError {
        let limit = LineReader.sizeText(dumpLimits.maxBytes)
        let what = size.map { "is \(LineReader.sizeText($0)), over" } ?? "expands past"
        return InputError.overLimit(
            path, "this stats dump \(what) the \(limit) limit for one (MQA_MAX_DUMP_BYTES raises it)")
    }

    /// `n` bytes as a person reads them: whole KiB, MiB or GiB when exact
    /// (the limits are), else one decimal.
    static func sizeText(_ n: Int) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where n >= 1 << shift {
            if n % (1 << shift) == 0 { return "\(n >> shift) \(unit)" }
            let tenths = Int((Double(n) * 10 / Double(1 << shift)).rounded())
            return "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(n) bytes"
    }
}

/// How far a stats dump may expand. A webrtc-internals document is held
/// whole (`LineReader.readAll`), as rtcstats dumps were before they were
/// read line by line: without bounds, a 100 KB zstd file expanding to
/// 3 GiB of spaces took 4.2 GB (and died where memory was short: "failed
/// to allocate"). The same bounds hold for both formats.
///
/// Figures (zstd -19 / gzip -9, 30 MB dumps made by
/// Benchmarks/gen_internals_dump.py and an rtcstats-shaped generator):
/// webrtc-internals with live counters 4.2:1 / 3.0:1, rtcstats 9.9:1 /
/// 7.3:1, and the extreme, a webrtc-internals dump whose every counter
/// stays 0 (idle connections), 112:1 / 10.4:1 (112:1 too with
/// `zstd --ultra -22 --long`). Bombs: 3 GiB of spaces is 99 KB of zstd
/// (32,500:1) and 3.1 MB of gzip (1,030:1, about deflate's ceiling).
public struct DumpLimits: Sendable {
    /// The most a dump may expand to (a webrtc-internals document is held
    /// whole, plus what the importer builds from it): 1 GiB is many times
    /// the largest real dump (webrtc-internals keeps the last 1,000 samples of each stat, so
    /// a dump grows with its connections, not the call's length: 0.3 to
    /// 0.6 MB a connection in the synthetic dumps above).
    public var maxBytes: Int
    /// Below this much content, no ratio is asked for: small dumps are
    /// never refused for compressing well. It is also all a bomb gets to
    /// hold before it is refused.
    public var ratioFloor: Int
    /// The most content a compressed byte may stand for, past `ratioFloor`,
    /// counted over the compressed bytes decompressed so far. About 10
    /// times the highest real ratio measured, and well under the bombs'.
    public var maxZstdRatio: Int
    /// The same for gzip, whose real ratios are ten times lower (and
    /// deflate cannot pass about 1,032:1, where its bombs sit).
    public var maxGzipRatio: Int

    /// 1 GiB, then past 64 MiB 1,000:1 for zstd (real dumps ≤ 112:1, bombs
    /// ≥ 10,000:1) and 100:1 for gzip (real ≤ 10.4:1, bombs ~1,000:1);
    /// `MQA_MAX_DUMP_BYTES` (bytes) overrides the 1 GiB, for tests and for
    /// a bigger dump on a big machine.
    public static let standard: DumpLimits = {
        var limits = DumpLimits(maxBytes: 1 << 30, ratioFloor: 64 << 20, maxZstdRatio: 1000, maxGzipRatio: 100)
        if let text = getenv("MQA_MAX_DUMP_BYTES"), let bytes = Int(String(cString: text)), bytes > 0 { limits.maxBytes = bytes }
        return limits
    }()

    public init(maxBytes: Int, ratioFloor: Int, maxZstdRatio: Int, maxGzipRatio: Int) {
        self.maxBytes = maxBytes
        self.ratioFloor = ratioFloor
        self.maxZstdRatio = maxZstdRatio
        self.maxGzipRatio = maxGzipRatio
    }

    func maxRatio(_ compression: Compression) -> Int { compression == .gzip ? maxGzipRatio : maxZstdRatio }
    /// The highest real ratio measured (see above), for the message.
    func highestRealRatio(_ compression: Compression) -> Int { compression == .gzip ? 10 : 112 }
}
