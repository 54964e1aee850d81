import Testing
@testable import MQABase
@testable import MQAStore

/// Every chunk encoding, old and new: random round trips, the columnar
/// event codec on payloads of every shape, and the bit-level pieces.
@Suite struct ChunkEncodingTests {
    func randomSeries(_ r: inout SplitMix64, count: Int) -> SeriesBlock {
        var t = r.int(-1_000_000...1_900_000_000_000)
        let regular = r.int(0...1) == 0
        let ts = (0..<count).map { _ in
            t = t &+ (regular ? 2000 + r.int(-150...150) : r.int(-1 << 40...1 << 40))
            return t
        }
        let columns = (0..<Int(r.int(0...6))).map { _ in
            let style = r.int(0...3)
            return (0..<count).map { _ -> DecimalNumber in
                switch style {
                case 0: return DecimalNumber(mantissa: r.int(0...500), exponent: Int16(-r.int(0...2)))
                case 1: return r.int(0...9) == 0 ? .null : DecimalNumber(mantissa: r.int(100...500), exponent: -2)
                case 2: return DecimalNumber(mantissa: Int64(bitPattern: r.next()), exponent: Int16(r.int(-20...20)))
                default: return r.int(0...1) == 0 ? DecimalNumber(binary: Double(bitPattern: r.next())) : .null
                }
            }
        }
        return SeriesBlock(ts: ts, columns: columns)
    }

    @Test("series round-trip in every report encoding", arguments: [ChunkEncoding.seriesVarint, .seriesBucketed])
    func seriesRoundTrip(encoding: ChunkEncoding) throws {
        var r = SplitMix64(seed: UInt64(encoding.rawValue) &* 31)
        let codec = ChunkCodec()
        for _ in 0..<60 {
            let block = randomSeries(&r, count: Int(r.int(0...2500)))
            let blob = try codec.encode(block, as: encoding)
            #expect(blob[0] == encoding.rawValue)
            let back = try codec.decode(blob)
            #expect(back.ts == block.ts)
            #expect(back.columns.count == block.columns.count)
            for (a, b) in zip(back.columns, block.columns) { #expect(zip(a, b).allSatisfy { sameNumber($0, $1) }) }
        }
    }

    /// Payload strings with what JSON escapes and what it need not.
    func randomString(_ r: inout SplitMix64) -> String {
        let pieces = ["u-a76e", "alice", "bob-cam", "\\\"", "\\\\", "\\n", "\\u0001", "週次", "—", "", "camera", "x y", "🎥"]
        return (0..<Int(r.int(0...3))).map { _ in pieces[Int(r.int(0...Int64(pieces.count - 1)))] }.joined()
    }

    func randomPayload(_ r: inout SplitMix64) -> [UInt8] {
        let keys = ["publisher", "track", "timedOut", "speakers", "target", "opUid", "zz-new-key", "on"]
        switch r.int(0...9) {
        case 0:  // not canonical: stored whole
            let odd = ["{\"a\":1}", "{ \"a\":\"b\"}", "{\"a\":null}", "{\"a\":{\"b\":\"c\"}}", "[]", "", "{", "{\"a\":\"b\"",
                       "{\"a\":\"b\\\"}", "{\"a\":[\"b\",]}", "{\"a\":tru}", "{\"a\":\"b\"}x", "{,}", "{\"a\"}", "{\"a\":[1]}"]
            if r.int(0...1) == 0 { return Array(odd[Int(r.int(0...Int64(odd.count - 1)))].utf8) }
            return (0..<Int(r.int(0...40))).map { _ in UInt8(truncatingIfNeeded: r.next()) }
        default:
            var fields: [String] = []
            for _ in 0..<Int(r.int(0...5)) {
                let key = "\"\(keys[Int(r.int(0...Int64(keys.count - 1)))])\":"
                switch r.int(0...3) {
                case 0: fields.append(key + (r.int(0...1) == 0 ? "true" : "false"))
                case 1: fields.append(key + "[" + (0..<Int(r.int(0...3))).map { _ in "\"\(randomString(&r))\"" }.joined(separator: ",") + "]")
                default: fields.append(key + "\"\(randomString(&r))\"")
                }
            }
            return Array(("{" + fields.joined(separator: ",") + "}").utf8)
        }
    }

    func randomEvents(_ r: inout SplitMix64, count: Int, sorted: Bool) -> EventBlock {
        var block = EventBlock()
        var t = r.int(-1_000_000...1_900_000_000_000)
        for _ in 0..<count {
            t = t &+ (sorted ? r.int(0...9000) : r.int(-1 << 50...1 << 50))
            block.append(ts: t, kind: UInt8(truncatingIfNeeded: r.int(0...24)), payload: randomPayload(&r))
        }
        return block
    }

    @Test("events round-trip in every event encoding", arguments: [ChunkEncoding.eventsJSON, .eventsColumnar])
    func eventsRoundTrip(encoding: ChunkEncoding) throws {
        var r = SplitMix64(seed: UInt64(encoding.rawValue) &* 977)
        let codec = ChunkCodec()
        for round in 0..<60 {
            let block = randomEvents(&r, count: Int(r.int(0...2100)), sorted: round % 3 != 0)
            let blob = try codec.encode(block, as: encoding)
            #expect(blob[0] == encoding.rawValue)
            #expect(try codec.decodeEvents(blob) == block)
        }
    }

    /// The shared form holds each (kind, payload) once and expands to the
    /// events as encoded; the same bytes under two kinds stay two entries.
    @Test("equal payloads are decoded once", arguments: [ChunkEncoding.eventsJSON, .eventsColumnar])
    func sharedPayloads(encoding: ChunkEncoding) throws {
        var r = SplitMix64(seed: 41)
        let texts = [#"{}"#, #"{"tier":"good"}"#, #"{"speakers":["u-1","u-2"]}"#, "not json", ""]
        var block = EventBlock()
        for i in 0..<500 {
            block.append(ts: Int64(i), kind: UInt8(r.int(6...7)), payload: Array(texts[Int(r.int(0...4))].utf8))
        }
        let codec = ChunkCodec()
        let shared = try codec.encode(block, as: encoding).withUnsafeBytes { try codec.decodeSharedEvents($0) }
        #expect(shared.expanded == block)
        #expect(shared.payloadIndex.count == block.ts.count)
        for i in block.ts.indices { #expect(shared.payloads[Int(shared.payloadIndex[i])] == block.payloads[i]) }
        if encoding == .eventsColumnar {
            let pairs = Set(block.ts.indices.map { "\(block.kinds[$0]) \(String(decoding: block.payloads[$0], as: UTF8.self))" })
            #expect(shared.payloads.count == pairs.count)
            for i in block.ts.indices {
                for j in block.ts.indices where block.kinds[i] == block.kinds[j] && block.payloads[i] == block.payloads[j] {
                    #expect(shared.payloadIndex[i] == shared.payloadIndex[j])
                }
            }
        }
    }

    @Test func extremeTimestampsRoundTrip() throws {
        let codec = ChunkCodec()
        let ts: [Int64] = [.min, .max, 0, .min, -1, .max, .max]
        let events = EventBlock(ts: ts, kinds: ts.map { _ in 7 }, payloads: ts.map { _ in Array("{}".utf8) })
        #expect(try codec.decodeEvents(try codec.encode(events, as: .eventsColumnar)) == events)
        let series = SeriesBlock(ts: ts, columns: [ts.map { DecimalNumber(mantissa: $0, exponent: 0) }])
        let back = try codec.decode(try codec.encode(series, as: .seriesBucketed))
        #expect(back.ts == ts && back.columns[0] == series.columns[0])
    }

    /// The events a client logs most: columns and dictionaries make them a
    /// few bytes each, where canonical JSON under zstd took about seven.
    @Test func typicalEventsAreSmall() throws {
        var r = SplitMix64(seed: 5)
        let uids = ["u-a76e", "u-30ac", "u-576d", "u-9aef", "u-8861"]
        var block = EventBlock()
        var t: Int64 = 1_795_946_400_000
        for _ in 0..<2000 {
            t += r.int(0...6000)
            let u = uids[Int(r.int(0...4))]
            switch r.int(0...2) {
            case 0:
                let speakers = (0..<Int(r.int(0...2))).map { _ in "\"\(uids[Int(r.int(0...4))])\"" }
                block.append(ts: t, kind: 7, payload: Array("{\"speakers\":[\(speakers.joined(separator: ","))]}".utf8))
            case 1:
                block.append(ts: t, kind: 10, payload: Array("{\"publisher\":\"\(u)\",\"track\":\"\(u)-cam\",\"timedOut\":\(r.int(0...9) == 0)}".utf8))
            default:
                block.append(ts: t, kind: 6, payload: Array("{\"tier\":\"\(["excellent", "good", "poor"][Int(r.int(0...2))])\"}".utf8))
            }
        }
        let codec = ChunkCodec()
        let columnar = try codec.encode(block, as: .eventsColumnar)
        let json = try codec.encode(block, as: .eventsJSON)
        #expect(try codec.decodeEvents(columnar) == block)
        #expect(Double(columnar.count) < 0.75 * Double(json.count), "columnar \(columnar.count) B, JSON \(json.count) B")
    }

    /// A full event chunk of long valid payloads (1,100 disconnects with a
    /// 70 KB error each made one) decompresses to more than the 64 MiB a
    /// report chunk may: it must read back, in both event encodings, or
    /// the store it is in fails every command.
    @Test func aChunkOfLongPayloadsReadsBack() throws {
        var block = EventBlock()
        for i in 0..<EventStore.chunkCapacity {
            let word = String(i, radix: 16)
            let error = String(repeating: String(repeating: "0", count: 3 - word.count) + word + " ", count: 9 * 1024)
            block.append(ts: Int64(i) * 60_000, kind: 8, payload: Array("{\"reason\":\"network\",\"error\":\"\(error)\"}".utf8))
        }
        #expect(block.payloadBytes.count > 64 << 20)
        let codec = ChunkCodec()
        for encoding in [ChunkEncoding.eventsColumnar, .eventsJSON] {
            let blob = try codec.encode(block, as: encoding)
            #expect(try codec.decodeEvents(blob) == block, "\(encoding)")
        }
    }

    @Test func encodingsAreNamedAndNotConfused() throws {
        let codec = ChunkCodec()
        let series = try codec.encode(SeriesBlock(ts: [1, 2], columns: [[.null, .null]]), as: .seriesBucketed)
        let events = try codec.encode(EventBlock(ts: [1], kinds: [3], payloads: [Array("{}".utf8)]), as: .eventsColumnar)
        #expect(series.withUnsafeBytes { ChunkEncoding(of: $0) } == .seriesBucketed)
        #expect(events.withUnsafeBytes { ChunkEncoding(of: $0) } == .eventsColumnar)
        #expect(throws: CorruptData.self) { try codec.decode(events) }
        #expect(throws: CorruptData.self) { try codec.decodeEvents(series) }
        var unknown = events
        unknown[0] = 99
        let error = #expect(throws: CorruptData.self) { try codec.decodeEvents(unknown) }
        #expect(error?.description.contains("chunk encoding 99") == true)
    }

    /// Damage behind a valid checksum (a writer bug, a bad disk under the
    /// CRC): every truncation and every flipped byte of the body either
    /// decodes or throws, never traps.
    @Test("damage behind a valid checksum throws", arguments: [ChunkEncoding.seriesBucketed, .eventsColumnar])
    func damageBehindTheChecksum(encoding: ChunkEncoding) throws {
        var r = SplitMix64(seed: 17)
        let codec = ChunkCodec()
        let blob = encoding.holdsReports
            ? try codec.encode(randomSeries(&r, count: 300), as: encoding)
            : try codec.encode(randomEvents(&r, count: 300, sorted: true), as: encoding)
        let body = Array(blob[ChunkEnvelope.headerSize...])
        func attempt(_ damaged: [UInt8]) {
            let sealed = ChunkEnvelope.wrap(encoding) { $0 += damaged }
            if encoding.holdsReports { _ = try? codec.decode(sealed) } else { _ = try? codec.decodeEvents(sealed) }
        }
        for cut in stride(from: 0, to: body.count, by: max(1, body.count / 200)) { attempt(Array(body[..<cut])) }
        for i in stride(from: 0, to: body.count, by: max(1, body.count / 300)) {
            var damaged = body
            damaged[i] ^= UInt8(truncatingIfNeeded: r.next() | 1)
            attempt(damaged)
        }
        #expect(throws: (any Error).self) {
            let sealed = ChunkEnvelope.wrap(encoding) { $0 += body.dropLast() }
            if encoding.holdsReports { _ = try codec.decode(sealed) } else { _ = try codec.decodeEvents(sealed) }
        }
    }
}

@Suite struct BitLevelTests {
    @Test func bitsRoundTripAtEveryWidth() throws {
        var r = SplitMix64(seed: 11)
        var values: [(UInt64, Int)] = (0...64).map { (~0, $0) }
        for _ in 0..<3000 {
            let width = Int(r.int(0...64))
            values.append((r.next(), width))
        }
        var w = BitWriter()
        for (v, width) in values { w.write(v, bits: width) }
        let bytes = w.finish()
        #expect(bytes.count == (values.reduce(0) { $0 + $1.1 } + 7) / 8)
        try bytes.withUnsafeBytes { raw in
            var reader = BitReader(raw)
            for (v, width) in values {
                let expected = width == 64 ? v : v & ((1 << UInt64(width)) - 1)
                let got = try reader.read(bits: width)
                #expect(got == expected)
            }
            #expect(reader.isAtEnd)
            #expect(throws: CorruptData.self) { try reader.read(bits: 9) }
        }
    }

    @Test func bucketCodingRoundTripsEveryBitLength() throws {
        var values: [UInt64] = [0, 1, 15, 16, 17, 31, 32, .max, .max - 1, 1 << 63]
        for length in 1...64 {
            let top: UInt64 = 1 << UInt64(length - 1)
            values += [top, top | (top >> 1), top | (top - 1)]
        }
        var symbols: [UInt8] = []
        var bits = BitWriter()
        BucketCoding.write(count: values.count, symbols: &symbols, bits: &bits) { values[$0] }
        #expect(symbols.count == values.count)
        #expect(symbols.prefix(4) == [0, 1, 15, 16])
        let raw = bits.finish()
        try symbols.withUnsafeBytes { s in
            try raw.withUnsafeBytes { b in
                var reader = ByteReader(s)
                var bitReader = BitReader(b)
                for v in values {
                    let got = try BucketCoding.read(&reader, bits: &bitReader)
                    #expect(got == v)
                }
                #expect(reader.isAtEnd && bitReader.isAtEnd)
            }
        }
        for v: Int64 in [0, -1, 1, .min, .max] { #expect(BucketCoding.unzigzag(BucketCoding.zigzag(v)) == v) }
    }

    @Test func internerNumbersInOrderOfFirstAppearance() {
        var interner = ByteInterner()
        let words = (0..<5000).map { Array("w\($0 % 1700)".utf8) } + [[], [0], [0, 0]]
        var firstIndex: [[UInt8]: Int] = [:]
        for w in words {
            let index = interner.intern(w)
            if let seen = firstIndex[w] { #expect(index == seen) } else {
                #expect(index == firstIndex.count)
                firstIndex[w] = index
            }
        }
        #expect(interner.count == 1703)
        #expect(Array(interner.entry(1699)) == Array("w1699".utf8))
    }

    /// Strings that differ in one byte, at every position of the word-wise
    /// hash (whole words and the tail), are told apart; equal ones are not.
    @Test func internerTellsApartOneByteDifferences() {
        var r = SplitMix64(seed: 8)
        var interner = ByteInterner()
        var seen: [[UInt8]: Int] = [:]
        for length in 0..<40 {
            let base = (0..<length).map { _ in UInt8(r.int(0...3)) }
            var variants = [base]
            for i in 0..<length { var v = base; v[i] ^= 0x80; variants.append(v) }
            for v in variants + variants {
                let index = interner.intern(v)
                if let first = seen[v] { #expect(index == first) } else { #expect(index == seen.count); seen[v] = index }
                #expect(Array(interner.entry(index)) == v)
            }
        }
        #expect(interner.count == seen.count)
    }
}
