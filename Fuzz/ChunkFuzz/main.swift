// libFuzzer target for the chunk decoders (ChunkCodec.decode and
// decodeEvents), built by Fuzz/run.sh together with the MQAStore sources
// (one module, so the internal payload decoder and `seal` are reachable).
//
// The first byte picks a mode:
//   0: the input as a stored blob, to both decoders (checksum and all);
//   1: the rest sealed with a valid checksum, so zstd sees it;
//   2: the rest compressed and sealed, so the column decoders see it;
//   3: the rest as a series block description: encode, decode, compare;
//   4: the rest as an event block description: encode, decode, compare.
// Damage must come out as a thrown error, never a trap; round trips must be
// exact. A violated property traps, which libFuzzer reports as a crash.

var codec = ChunkCodec(level: 1)

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property violated: " + message()) }
}

/// The chunk envelope without compression: version, CRC-32 of the frame, frame.
func envelope(_ frame: [UInt8], version: UInt8) -> [UInt8] {
    var out: [UInt8] = [version, 0, 0, 0, 0]
    out += frame
    let crc = out.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[5...])) }
    for i in 0..<4 { out[1 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
    return out
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

func seriesRoundTrip(_ feed: inout Feed) {
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
    do { blob = try codec.encode(block) } catch { fatalError("encode failed: \(error)") }
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

func eventRoundTrip(_ feed: inout Feed) {
    var block = EventBlock()
    let count = Int(feed.byte() % 32)
    var t = feed.int64()
    for _ in 0..<count {
        t = t &+ Int64(Int8(bitPattern: feed.byte()))
        block.ts.append(t)
        block.kinds.append(feed.byte())
        let length = Int(feed.byte() % 16)
        block.payloads.append((0..<length).map { _ in feed.byte() })
    }
    let blob: [UInt8]
    do { blob = try codec.encode(block) } catch { fatalError("encode failed: \(error)") }
    let back: EventBlock
    do { back = try codec.decodeEvents(blob) } catch { fatalError("decode of a fresh event chunk failed: \(error)") }
    check(back == block, "event block changed in a round trip")
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
        decodeBoth(envelope(rest, version: ChunkCodec.version))
        decodeBoth(envelope(rest, version: ChunkCodec.eventVersion))
    case 2:
        if let series = try? codec.seal(rest, version: ChunkCodec.version) { decodeBoth(series) }
        if let events = try? codec.seal(rest, version: ChunkCodec.eventVersion) { decodeBoth(events) }
    case 3:
        var feed = Feed(bytes: rest[...])
        seriesRoundTrip(&feed)
    default:
        var feed = Feed(bytes: rest[...])
        eventRoundTrip(&feed)
    }
    return 0
}
