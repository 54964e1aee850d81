import Testing
@testable import MQABase
@testable import MQAStore
import MQAModel

/// The seeded generator, so property tests replay the same cases.
typealias TestRandom = SplitMix64

extension SplitMix64 {
    /// Uniform enough over any Int64 range, the full one included.
    mutating func int(_ range: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
        return range.lowerBound &+ Int64(bitPattern: span == 0 ? next() : next() % span)
    }
}

/// Equal as numbers: decimals compared normalized, binaries by bits.
func sameNumber(_ a: DecimalNumber, _ b: DecimalNumber) -> Bool {
    if a.isNull || b.isNull { return a.isNull == b.isNull }
    if a.isBinary || b.isBinary { return a.doubleValue?.bitPattern == b.doubleValue?.bitPattern }
    return a.normalized == b.normalized
}

@Suite struct ChunkCodecTests {
    func randomColumn(_ r: inout TestRandom, count: Int, style: Int) -> [DecimalNumber] {
        (0..<count).map { i in
            switch style {
            case 0: return DecimalNumber(mantissa: r.int(0...10_000), exponent: Int16(-r.int(0...3)))
            case 1: return DecimalNumber(mantissa: 42, exponent: -1)  // repeated
            case 2:  // extremes
                let picks: [DecimalNumber] = [
                    DecimalNumber(mantissa: .max, exponent: 0), DecimalNumber(mantissa: .min + 1, exponent: 0),
                    DecimalNumber(mantissa: 0, exponent: 0), DecimalNumber(mantissa: 1, exponent: -18),
                    DecimalNumber(mantissa: 123, exponent: 300), DecimalNumber(binary: 1e300),
                    DecimalNumber(binary: -0.0), .null,
                ]
                return picks[Int(r.int(0...Int64(picks.count - 1)))]
            case 3: return i % 7 == 0 ? .null : DecimalNumber(mantissa: r.int(100...500), exponent: -2)
            default: return DecimalNumber(mantissa: r.int(-1_000_000...1_000_000), exponent: Int16(r.int(-6...6)))
            }
        }
    }

    /// Decimals that share no 64-bit scale used to fall back to Double bits
    /// and lose digits; mode 2 keeps each one exactly.
    @Test func decimalsWithoutACommonScaleStayExact() throws {
        let column: [DecimalNumber] = [
            DecimalNumber(mantissa: 123_456_789_123_456_789, exponent: -9), DecimalNumber(mantissa: 1, exponent: -12),
            .null, DecimalNumber(mantissa: 1, exponent: -30000), DecimalNumber(mantissa: -7, exponent: 400),
            DecimalNumber(mantissa: .max, exponent: -18),
        ]
        var codec = ChunkCodec()
        let block = SeriesBlock(ts: Array(0..<Int64(column.count)), columns: [column])
        let decoded = try codec.decode(try codec.encode(block))
        #expect(decoded.columns[0].map(\.jsonText) == column.map(\.jsonText))
        #expect(decoded.columns[0].map { $0.normalized } == column.map { $0.normalized })
    }

    @Test("random series round-trip exactly", arguments: 0..<5)
    func roundTrip(style: Int) throws {
        var r = TestRandom(seed: UInt64(style) &* 7919)
        var codec = ChunkCodec()
        for _ in 0..<40 {
            let count = Int(r.int(0...3000))
            var t = r.int(946_684_800_000...1_900_000_000_000)
            let ts = (0..<count).map { _ in
                t += r.int(-300...4000)
                return t
            }
            let columns = (0..<5).map { _ in randomColumn(&r, count: count, style: style) }
            let block = SeriesBlock(ts: ts, columns: columns)
            let decoded = try codec.decode(try codec.encode(block))
            #expect(decoded.ts == ts)
            #expect(decoded.columns.count == 5)
            for c in 0..<5 {
                #expect(zip(decoded.columns[c], columns[c]).allSatisfy { sameNumber($0, $1) })
            }
        }
    }

    @Test func keepsDecimalsExactly() throws {
        var codec = ChunkCodec()
        let values = [DecimalNumber(mantissa: 4, exponent: -1), DecimalNumber(mantissa: 450, exponent: -2),
                      DecimalNumber(mantissa: 1, exponent: 3), DecimalNumber(mantissa: 0, exponent: 0)]
        let decoded = try codec.decode(try codec.encode(SeriesBlock(ts: [1, 2, 3, 4], columns: [values])))
        #expect(decoded.columns[0].map(\.jsonText) == ["0.4", "4.5", "1000", "0"])
        #expect(decoded.columns[0][0].doubleValue == 0.4)
    }

    @Test func detectsEveryFlippedByte() throws {
        var codec = ChunkCodec()
        let ts = (0..<500).map { Int64($0) * 2000 + 1_795_946_400_000 }
        let col = (0..<500).map { DecimalNumber(mantissa: Int64($0 % 50), exponent: -1) }
        let blob = try codec.encode(SeriesBlock(ts: ts, columns: [col, col]))
        for i in 0..<blob.count {
            var damaged = blob
            damaged[i] ^= 0x5A
            #expect(throws: (any Error).self) { try codec.decode(damaged) }
        }
    }

    @Test func smallSeriesCompress() throws {
        var codec = ChunkCodec()
        let n = 1800
        var ts: [Int64] = []
        var col: [DecimalNumber] = []
        for i in 0..<n {
            let jitter = Int64(i % 3) * 7
            ts.append(Int64(i) * 2000 + jitter + 1_795_946_400_000)
            col.append(DecimalNumber(mantissa: Int64(400 + (i * 37) % 20), exponent: -2))
        }
        let blob = try codec.encode(SeriesBlock(ts: ts, columns: [col, col, col, col, col]))
        // 6 values per report; the naive form is 48 bytes.
        #expect(Double(blob.count) / Double(n) < 6)
    }
}

@Suite struct PrimitivesTests {
    @Test func varintsRoundTrip() throws {
        var r = TestRandom(seed: 3)
        var w = ByteWriter()
        var values: [Int64] = [0, 1, -1, .max, .min, 63, -64, 64]
        for _ in 0..<1000 { values.append(Int64(bitPattern: r.next()) >> Int64(r.int(0...63))) }
        for v in values { w.signed(v) }
        try w.bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            for v in values {
                let decoded = try reader.signed()
                #expect(decoded == v)
            }
            #expect(reader.isAtEnd)
        }
    }

    @Test func truncatedVarintThrows() {
        [UInt8(0x80), 0x80].withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            #expect(throws: CorruptData.self) { try reader.varint() }
        }
    }

    @Test func crcMatchesKnownValue() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
    }

    @Test func contentHashIsIndependentOfChunking() {
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var whole = ContentHasher()
        data.withUnsafeBytes { whole.update($0) }
        var pieces = ContentHasher()
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var i = 0
            var step = 1
            while i < raw.count {
                let end = min(raw.count, i + step)
                pieces.update(UnsafeRawBufferPointer(rebasing: raw[i..<end]))
                i = end
                step = step % 13 + 1
            }
        }
        #expect(whole.finalize() == pieces.finalize())
        var other = ContentHasher()
        var changed = data
        changed[5000] ^= 1
        changed.withUnsafeBytes { other.update($0) }
        #expect(other.finalize() != whole.finalize())
    }

    @Test func decimalToDoubleIsCorrectlyRounded() {
        let cases: [(Int64, Int16, Double)] = [(431, -2, 4.31), (4, -1, 0.4), (1, 3, 1000), (-0, 0, 0),
                                                (17976931348623157, 292, 1.7976931348623157e308),
                                                (5, -324, .leastNonzeroMagnitude), (123456789012345678, -5, 1234567890123.45678)]
        for (m, e, d) in cases { #expect(DecimalNumber(mantissa: m, exponent: e).doubleValue == d) }
    }
}

@Suite struct EventChunkCodecTests {
    @Test func randomEventBlocksRoundTrip() throws {
        var r = TestRandom(seed: 99)
        var codec = ChunkCodec()
        for _ in 0..<50 {
            let n = Int(r.int(0...2000))
            var block = EventBlock()
            var t = r.int(946_684_800_000...1_900_000_000_000)
            for _ in 0..<n {
                t += r.int(0...5000)
                // A place among the millisecond's reports on one event in ten.
                let place = r.int(0...9) == 0 ? UInt32(r.int(0...3)) : TimedEvent.byKind
                block.append(ts: t, kind: UInt8(r.int(1...16)), payload: (0..<Int(r.int(0...80))).map { _ in UInt8(truncatingIfNeeded: r.next()) },
                             reportsBefore: place)
            }
            #expect(try codec.decodeEvents(try codec.encode(block)) == block)
        }
    }

    @Test func eventAndReportChunksAreNotConfused() throws {
        var codec = ChunkCodec()
        let events = try codec.encode(EventBlock(ts: [1], kinds: [3], payloads: [[1, 2]]))
        #expect(throws: CorruptData.self) { try codec.decode(events) }
        var damaged = events
        damaged[damaged.count - 1] ^= 1
        #expect(throws: CorruptData.self) { try codec.decodeEvents(damaged) }
    }
}
