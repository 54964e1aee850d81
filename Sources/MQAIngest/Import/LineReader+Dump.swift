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
        let raw = try readAhead(limit)
        guard compression != .none else { return raw }
        let stream: StreamDecompressor = compression == .zstd ? ZstdStream() : GzipStream()
        var out = [UInt8](repeating: 0, count: limit)
        var produced = 0
        raw.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                var inPos = 0
                // A damaged stream is reported by the real read; here it only ends the peek.
                while inPos < input.count && produced < output.count {
                    let before = (inPos, produced)
                    do { try stream.decompress(input: input, inputPosition: &inPos, output: output, outputPosition: &produced) } catch { break }
                    if before == (inPos, produced) { break }
                }
            }
        }
        return Array(out[0..<produced])
    }

    /// Calls `body` with the whole decompressed content, read once through
    /// this reader's descriptor and hashed like streamed lines are
    /// (`finalDigest`). Not mapped: a file truncated under a mapping would
    /// kill the process (SIGBUS), and reopening it by name could read
    /// other bytes than the ones sniffed.
    public func withContent<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        let content = try readAll()
        content.withUnsafeBytes { recordWholeContent($0) }
        return try content.withUnsafeBufferPointer { try body($0) }
    }

    /// The whole decompressed content. A dump is one document (or one
    /// connection's lines spread over the file), so it is held whole:
    /// memory is its decompressed size plus one read buffer.
    public func readAll() throws -> [UInt8] {
        var content: [UInt8] = []
        if let size, compression == .none { content.reserveCapacity(size + 1) }
        let chunk = 1 << 20
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { raw.deallocate() }
        guard compression != .none else {
            while true {
                let n = try readRaw(raw)
                if n == 0 { return content }
                content.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<n]))
            }
        }
        let stream: StreamDecompressor = compression == .zstd ? ZstdStream() : GzipStream()
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { out.deallocate() }
        var sawInput = false
        while true {
            let n = try readRaw(raw)
            if n == 0 {
                if sawInput && !stream.atFrameBoundary {
                    throw InputError.badCompression(path, "\(compression.name) stream is damaged or truncated: unexpected end of data")
                }
                return content
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
                content.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[0..<outPos]))
                if outPos == 0 && inPos == before {
                    throw InputError.badCompression(path, "\(compression.name) stream is damaged: no progress")
                }
            } while inPos < n
        }
    }
}
