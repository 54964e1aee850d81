// Shared by the two import fuzz targets (compiled into each): the property
// both check on top of "never crashes".

#if canImport(Glibc)
import Glibc
#endif
import MQAStore

let fuzzNow: Int64 = 1_796_083_200_000
var lineParser = LineParser(nowMs: fuzzNow)

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property violated: " + message()) }
}

/// Small enough for inputs of at most 8 KiB (`-max_len=8192`) to reach
/// every limit of `LineReader.readAll`: a plain dump over 6 KiB, a
/// compressed one expanding past 6 KiB, or past 1 KiB more than 20:1
/// (zstd) or 10:1 (gzip). Below them, the importer gets the content.
let fuzzLimits = DumpLimits(maxBytes: 6 << 10, ratioFloor: 1 << 10, maxZstdRatio: 20, maxGzipRatio: 10)

/// The input goes through the reader as a file, as the ingest reads a
/// dump: one file, rewritten for each input, unlinked at once and opened
/// again through /proc/self/fd (nothing is left behind).
let fuzzFD: Int32 = {
    var template = Array("/tmp/mqa-fuzz-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    check(fd >= 0, "cannot create the input file")
    unlink(template)
    return fd
}()

/// Reads the input as `LineReader` reads a dump (sniffed compression,
/// decompression, `fuzzLimits`), then converts the content; every produced
/// line must be an event the ingest validator accepts, or be refused only
/// for its envelope (a uid over 256 characters, a time out of range):
/// those are the validator's to judge. Version 2's participant rules add:
/// every event is one person's in one meeting, in time order, joining once.
func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int, _ format: InputFormat) {
    check(ftruncate(fuzzFD, 0) == 0 && pwrite(fuzzFD, data, size, 0) == size, "cannot write the input file")
    guard let reader = try? LineReader(path: "/proc/self/fd/\(fuzzFD)") else { return check(false, "cannot open the input file") }
    reader.dumpLimits = fuzzLimits
    // The ingest peeks (to tell the format) before it reads: so does this.
    _ = try? reader.peekContent()
    let compression = reader.compression
    let content: [UInt8]
    do {
        content = try reader.readAll()
    } catch InputError.overLimit(_, let why) {
        // Plain input is refused only for its size, known before reading.
        check(compression != .none || size > fuzzLimits.maxBytes, "plain input of \(size) bytes refused: \(why)")
        return
    } catch {
        check(compression != .none, "plain input failed: \(error)")
        return
    }
    check(content.count <= fuzzLimits.maxBytes, "held \(content.count) bytes, over the limit")
    if compression == .none {
        check(content.elementsEqual(UnsafeBufferPointer(start: data, count: size)), "plain content differs from the input")
    } else if content.count > fuzzLimits.ratioFloor {
        check(content.count <= fuzzLimits.maxRatio(compression) * size, "held \(content.count) bytes from \(size), over the ratio")
    }
    let converted = content.withUnsafeBufferPointer { try? WebRTCImport.convert($0, format: format, fileName: "fuzz.txt", meeting: nil) }
    guard let conversion = converted else { return }
    var produced = 0
    var who: ([UInt8], [UInt8])? = nil
    var lastTs = Int64.min
    var joins = 0
    conversion.lines.withUnsafeBufferPointer { lines in
        var start = 0
        while let newline = lines[start...].firstIndex(of: 0x0A) {
            let line = UnsafeBufferPointer(rebasing: lines[start..<newline])
            switch lineParser.parse(line) {
            case .event:
                let person = (lineParser.meeting, lineParser.uid)
                if let who { check(who == person, "two participants in one dump: \(String(decoding: line, as: UTF8.self))") }
                who = person
                check(lineParser.ts >= lastTs, "events out of time order: \(String(decoding: line, as: UTF8.self))")
                lastTs = lineParser.ts
                if lineParser.kind == .meetingJoin { joins += 1 }
            case .ignored: check(false, "produced an unknown event: \(String(decoding: line, as: UTF8.self))")
            case .rejected(let reason):
                check(reason.hasPrefix("uid:") || reason.hasPrefix("ts:"),
                      "produced a line the validator rejects (\(reason)): \(String(decoding: line, as: UTF8.self))")
            }
            produced += 1
            start = newline + 1
        }
        check(start == lines.count, "output does not end with a newline")
    }
    check(joins <= 1, "\(joins) meeting_join events: one person joins once, then reconnects")
    check(produced == conversion.events, "counted \(conversion.events) events, produced \(produced) lines")
}
