import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore

/// What the summaries take back from `RecentChunks` instead of decoding
/// must be what decoding gives, bit for bit; and the cache hands a block
/// out once, for the very bytes it was given, within its budget.
@Suite struct RecentChunksTests {
    /// Doubles compared by their bits: NaN (a null MOS) equals NaN.
    func sameBits(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
    }

    func sameColumns(_ a: ReportColumns, _ b: ReportColumns) -> Bool {
        a.ts == b.ts && sameBits(a.loss, b.loss) && sameBits(a.rtt, b.rtt) && sameBits(a.jitter, b.jitter)
            && sameBits(a.bitrate, b.bitrate) && sameBits(a.mos, b.mos)
    }

    /// Report values in the forms a log gives them: short decimals, nulls,
    /// long mantissas, big and small exponents, and binary doubles.
    func randomReports(_ r: inout SplitMix64, count: Int) -> ReportSeries {
        var t = r.int(0...1_900_000_000_000)
        let ts = (0..<count).map { _ in
            t += r.int(0...4000)
            return t
        }
        let columns = ReportColumn.allCases.map { _ in
            let style = r.int(0...4)
            return (0..<count).map { _ -> DecimalNumber in
                if r.int(0...7) == 0 { return .null }
                switch style {
                case 0: return DecimalNumber(mantissa: r.int(0...500), exponent: Int16(-r.int(0...3)))
                case 1: return DecimalNumber(mantissa: r.int(100...450), exponent: -2)
                case 2: return DecimalNumber(mantissa: Int64(bitPattern: r.next()) >> r.int(0...40), exponent: Int16(r.int(-30...30)))
                case 3: return DecimalNumber(binary: Double(r.int(0...1_000_000)) / 7)
                default: return DecimalNumber(mantissa: r.int(0...5), exponent: 0)
                }
            }
        }
        return ReportSeries(ts: ts, columns: columns)
    }

    @Test func keptReportsAreTheDecodedChunkBitForBit() throws {
        var r = SplitMix64(seed: 2026)
        for _ in 0..<80 {
            let series = randomReports(&r, count: Int(r.int(1...3000)))
            let cut = Int(r.int(0...Int64(series.count - 1)))
            for range in [0..<series.count, cut..<series.count] {
                var plain = ChunkCodec()
                var keeping = ChunkCodec()
                let recent = RecentChunks()
                keeping.recent = recent
                let row = try EventStore.reportRow(series, range, codec: &keeping)
                let without = try EventStore.reportRow(series, range, codec: &plain)
                #expect(row.blob == without.blob)
                // The chunk's statistics do not depend on keeping.
                #expect(row.stats.count == without.stats.count)
                for (a, b) in zip(row.stats, without.stats) {
                    #expect(a.count == b.count && a.lo.bitPattern == b.lo.bitPattern && a.hi.bitPattern == b.hi.bitPattern
                        && a.sum.bitPattern == b.sum.bitPattern)
                }
                var decoded = ReportColumns()
                decoded.append(try plain.decode(row.blob))
                let kept = try #require(row.blob.withUnsafeBytes { recent.takeReports($0) })
                #expect(sameColumns(kept, decoded))
            }
        }
    }

    @Test func sharedEventsAreWhatDecodingShares() throws {
        var r = SplitMix64(seed: 77)
        let events = ChunkEncodingTests()
        let codec = ChunkCodec()
        for round in 0..<60 {
            let block = events.randomEvents(&r, count: Int(r.int(0...2100)), sorted: round % 3 != 0)
            let (blob, shared) = try codec.encodeSharing(block)
            #expect(blob == (try codec.encode(block, as: .eventsColumnar)))
            let decoded = try blob.withUnsafeBytes { try codec.decodeSharedEvents($0) }
            #expect(shared.ts == decoded.ts)
            #expect(shared.kinds == decoded.kinds)
            #expect(shared.payloadIndex == decoded.payloadIndex)
            #expect(shared.payloads == decoded.payloads)
        }
    }

    @Test func blocksAreHandedOutOnceForTheirOwnBytes() throws {
        let recent = RecentChunks()
        var columns = ReportColumns()
        columns.append(ts: 5, QualityReport(loss: 1, rtt: 2, jitter: 3, bitrate: 4, mos: 3.5))
        let blob: [UInt8] = [2, 9, 9, 9, 1]
        recent.remember(blob, reports: columns)
        var other = blob
        other[2] = 8
        #expect(other.withUnsafeBytes { recent.takeReports($0) } == nil, "one byte differs")
        #expect(blob.withUnsafeBytes { recent.takeEvents($0) } == nil, "reports are not events")
        #expect(blob.withUnsafeBytes { recent.takeReports($0) } == columns)
        #expect(blob.withUnsafeBytes { recent.takeReports($0) } == nil, "handed out once")
        #expect(recent.hits == 1)
        #expect(recent.heldBytes == 0)
    }

    @Test func theOldestAreDroppedPastTheBudget() throws {
        var columns = ReportColumns()
        for i in 0..<100 { columns.append(ts: Int64(i), QualityReport(loss: 0, rtt: 0, jitter: 0, bitrate: 0, mos: 4)) }
        // Room for two such blocks, not three.
        let recent = RecentChunks(budget: 2 * (48 * 100 + 6 * 32 + 1) + 10)
        for b in 0..<3 { recent.remember([UInt8(b)], reports: columns) }
        #expect(recent.dropped == 1)
        #expect([UInt8(0)].withUnsafeBytes { recent.takeReports($0) } == nil)
        #expect([UInt8(1)].withUnsafeBytes { recent.takeReports($0) } != nil)
        #expect([UInt8(2)].withUnsafeBytes { recent.takeReports($0) } != nil)
        // A block larger than the whole budget is not kept at all.
        let small = RecentChunks(budget: 100)
        small.remember([7], reports: columns)
        #expect(small.heldBytes == 0)
    }
}
