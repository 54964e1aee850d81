// libFuzzer target for the chunk decoders (ChunkCodec.decode and
// decodeEvents, every ChunkEncoding), built by Fuzz/run.sh together with
// the MQAStore sources (one module, so the envelope and `seal` are
// reachable).
//
// The first byte picks a mode:
//   0: the input as a stored blob, to both decoders (checksum and all);
//   1: the rest as the body of each encoding, with a valid checksum, so the
//      section readers and zstd see it;
//   2: the rest compressed and sealed, so the column decoders of the first
//      two encodings see it;
//   3: the rest as a series block description: encode in each report
//      encoding, decode, compare;
//   4: the rest as an event block description (payloads canonical objects
//      or any bytes): encode in each event encoding, decode, compare.
// Damage must come out as a thrown error, never a trap; round trips must be
// exact. A violated property traps, which libFuzzer reports as a crash.

var codec = ChunkCodec(level: 1)

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property violated: " + message()) }
}

func decodeBoth(_ blob: [UInt8]) {
    _ = try? codec.decode(blob)
    _ = try? codec.decodeEvents(blob)
}

/// Reads fuzz bytes as little numbers.
struct Feed {
    var bytes: ArraySlice<UInt8>
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
    mutating func int64() -> Int64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(byte()) << UInt64(8 * i) }
        return Int64(bitPattern: v)
    }
    var isEmpty: Bool { bytes.isEmpty }
}

func same(_ a: DecimalNumber, _ b: DecimalNumber) -> Bool {
    if a.isNull || b.isNull { return a.isNull == b.isNull }
    let x = a.doubleValue!, y = b.doubleValue!
    return x == y || (x.isNaN && y.isNaN)
}

func seriesRoundTrip(_ feed: inout Feed, as encoding: ChunkEncoding) {
    let columns = Int(feed.byte() % 6)
    let count = Int(feed.byte() % 64) + 1
    var ts: [Int64] = []
    var cols = [[DecimalNumber]](repeating: [], count: columns)
    var t = feed.int64() >> UInt8(feed.byte() % 64)
    for _ in 0..<count {
        t = t &+ Int64(Int8(bitPattern: feed.byte())) &* Int64(feed.byte())
        ts.append(t)
        for c in 0..<columns {
            let tag = feed.byte()
            switch tag % 4 {
            case 0: cols[c].append(.null)
            case 1: cols[c].append(DecimalNumber(binary: Double(bitPattern: UInt64(bitPattern: feed.int64()))))
            default:
                let m = tag % 4 == 2 ? Int64(Int16(truncatingIfNeeded: feed.int64())) : feed.int64()
                cols[c].append(DecimalNumber(mantissa: m, exponent: Int16(Int8(bitPattern: feed.byte())) % 40))
            }
        }
    }
    let block = SeriesBlock(ts: ts, columns: cols)
    let blob: [UInt8]
    do { blob = try codec.encode(block, as: encoding) } catch { fatalError("encode failed: \(error)") }
    let back: SeriesBlock
    do { back = try codec.decode(blob) } catch { fatalError("decode of a fresh chunk failed: \(error)") }
    check(back.ts == ts, "timestamps changed")
    check(back.columns.count == columns, "column count changed")
    for c in 0..<columns {
        for i in 0..<count {
            check(same(cols[c][i], back.columns[c][i]), "column \(c) row \(i): \(cols[c][i]) became \(back.columns[c][i])")
        }
    }
}

/// A payload from fuzz bytes: mostly a canonical object built from string,
/// bool and array fields (what the columnar codec splits), else raw bytes.
func payload(_ feed: inout Feed) -> [UInt8] {
    let length = Int(feed.byte() % 16)
    guard feed.byte() % 4 != 0 else { return (0..<length).map { _ in feed.byte() } }
    func string() -> String {
        let pieces = ["a", "u-1", "\\\"", "\\\\", "\\n", "é", "週", "publisher", "speakers", ""]
        return (0..<Int(feed.byte() % 3)).map { _ in pieces[Int(feed.byte()) % pieces.count] }.joined()
    }
    var fields: [String] = []
    for _ in 0..<min(length, 5) {
        let key = "\"" + string() + "\":"
        switch feed.byte() % 3 {
        case 0: fields.append(key + (feed.byte() % 2 == 0 ? "true" : "false"))
        case 1: fields.append(key + "[" + (0..<Int(feed.byte() % 4)).map { _ in "\"" + string() + "\"" }.joined(separator: ",") + "]")
        default: fields.append(key + "\"" + string() + "\"")
        }
    }
    return Array(("{" + fields.joined(separator: ",") + "}").utf8)
}

func eventRoundTrip(_ feed: inout Feed, as encoding: ChunkEncoding) {
    var block = EventBlock()
    let count = Int(feed.byte() % 32)
    var t = feed.int64()
    for _ in 0..<count {
        t = t &+ Int64(Int8(bitPattern: feed.byte())) &* Int64(feed.byte())
        let kind = feed.byte()
        block.append(ts: t, kind: kind, payload: payload(&feed))
    }
    let blob: [UInt8]
    do { blob = try codec.encode(block, as: encoding) } catch { fatalError("encode failed: \(error)") }
    let back: EventBlock
    do { back = try codec.decodeEvents(blob) } catch { fatalError("decode of a fresh event chunk failed: \(error)") }
    check(back == block, "event block changed in a round trip (\(encoding))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunk(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let rest = Array(bytes.dropFirst())
    switch bytes[0] % 5 {
    case 0:
        decodeBoth(bytes)
        decodeBoth(rest)
    case 1:
        for encoding in ChunkEncoding.allCases { decodeBoth(ChunkEnvelope.wrap(encoding) { $0 += rest }) }
    case 2:
        for encoding in [ChunkEncoding.seriesVarint, .eventsJSON] {
            if let sealed = try? codec.seal(rest, as: encoding) { decodeBoth(sealed) }
        }
    case 3:
        for encoding in [ChunkEncoding.seriesVarint, .seriesBucketed] {
            var feed = Feed(bytes: rest[...])
            seriesRoundTrip(&feed, as: encoding)
        }
    default:
        for encoding in [ChunkEncoding.eventsJSON, .eventsColumnar] {
            var feed = Feed(bytes: rest[...])
            eventRoundTrip(&feed, as: encoding)
        }
    }
    return 0
}
