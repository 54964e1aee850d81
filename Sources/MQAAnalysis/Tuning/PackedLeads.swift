import MQABase

/// A lead-time histogram (`TuningCounts.leads`) packed for keeping across
/// batches (`TuningTally`), in LEB128 varints. A fleet's config holds
/// ~30,000 bins, and a grid may hold thousands of configs: a bin took 16
/// bytes unpacked, and 2 a bin packed as (gap, count) pairs, 108 MB for a
/// grid of 1,000 configs over 3,000 meetings.
///
/// Such a histogram is two histograms: every ms of the first `leadMs` or
/// so, each with many stalls, then a long sparse tail of single stalls
/// (a lead runs back to the last alarm, however long ago). So each entry
/// starts with a token, `gap << 2 | kind`, the gap from the ms before:
/// - kind 0: one bin of count 1;
/// - kind 1: one bin, its count less 2 follows;
/// - kind 2: a run of bins 1 ms apart, its length less 3 follows (in 3
///   bytes), then each bin's count less 1.
/// On the fleet's histograms that is 34 KB where pairs took 60.
public struct PackedLeads: Sendable, Equatable {
    private(set) var bytes: [UInt8] = []
    /// Lead times in all (the sum of the counts).
    public private(set) var count = 0
    public private(set) var binCount = 0

    public init() {}

    /// Packs bins in the form of `TuningCounts.leads`: ascending ms ≥ 0,
    /// counts > 0.
    public init(_ bins: [TuningCounts.LeadBin]) {
        self.init()
        var writer = Writer(reservingCapacity: 2 * bins.count)
        for bin in bins { writer.append(bin) }
        self = writer.finish()
    }

    /// The bins, unpacked.
    public var bins: [TuningCounts.LeadBin] {
        var out: [TuningCounts.LeadBin] = []
        out.reserveCapacity(binCount)
        forEachBin { out.append($0) }
        return out
    }

    /// Nearest-rank p50 (the ⌈n/2⌉-th smallest), as `TuningCounts.medianLeadMs`.
    public var medianMs: Int64? {
        guard count > 0 else { return nil }
        let rank = NearestRank.rank(percent: 50, count: count)
        var seen = 0
        var median: Int64?
        forEachBin { bin in
            guard median == nil else { return }
            seen += bin.count
            if seen >= rank { median = bin.ms }
        }
        return median
    }

    /// These lead times and `other`'s (ascending bins), in one histogram.
    public func merged(with other: [TuningCounts.LeadBin]) -> PackedLeads {
        guard !other.isEmpty else { return self }
        var writer = Writer(reservingCapacity: bytes.count + 2 * other.count)
        var j = 0
        forEachBin { bin in
            while j < other.count, other[j].ms < bin.ms {
                writer.append(other[j])
                j += 1
            }
            if j < other.count, other[j].ms == bin.ms {
                writer.append(TuningCounts.LeadBin(ms: bin.ms, count: bin.count + other[j].count))
                j += 1
            } else {
                writer.append(bin)
            }
        }
        while j < other.count {
            writer.append(other[j])
            j += 1
        }
        return writer.finish()
    }

    private func forEachBin(_ body: (TuningCounts.LeadBin) -> Void) {
        var i = 0
        var ms: Int64 = 0
        func varint() -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                let b = bytes[i]
                i += 1
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
        }
        while i < bytes.count {
            let token = varint()
            ms += Int64(bitPattern: token >> 2)
            switch token & 3 {
            case 0:
                body(TuningCounts.LeadBin(ms: ms, count: 1))
            case 1:
                body(TuningCounts.LeadBin(ms: ms, count: Int(varint()) + 2))
            default:
                let length = Int(varint()) + 3
                for k in 0..<length {
                    if k > 0 { ms += 1 }
                    body(TuningCounts.LeadBin(ms: ms, count: Int(varint()) + 1))
                }
            }
        }
    }

    /// Packs bins given in ascending ms in one pass: each bin is written as
    /// it comes, and the third of a run of bins 1 ms apart rewrites the two
    /// before it as the run's start. A run's length is written in 3 bytes
    /// (LEB128 padded with continuation bits, which reads as any other),
    /// filled in when the run ends.
    private struct Writer {
        var packed = PackedLeads()
        /// The ms of the last bin written.
        var lastMs: Int64 = 0
        /// Bins 1 ms apart ending at the last one; 0 before the first bin.
        var runLength = 0
        /// Where the run's first bin was written, with its gap, and the
        /// counts of its first two bins.
        var runOffset = 0
        var runGap: UInt64 = 0
        var firstCounts = (0, 0)
        /// Where a run of 3 bins or more has its length.
        var lengthOffset = 0
        /// The most a padded length holds.
        static let maxRunLength = (1 << 21) - 1 + 3

        init(reservingCapacity n: Int) { packed.bytes.reserveCapacity(n) }

        mutating func append(_ bin: TuningCounts.LeadBin) {
            packed.count += bin.count
            packed.binCount += 1
            let gap = UInt64(bitPattern: bin.ms - lastMs)  // lead times: far below 2^61 ms
            lastMs = bin.ms
            switch runLength {
            case _ where gap != 1 || runLength == 0:
                endRun()
                runLength = 1
                runOffset = packed.bytes.count
                runGap = gap
                firstCounts.0 = bin.count
                putSingle(gap: gap, count: bin.count)
            case 1:
                runLength = 2
                firstCounts.1 = bin.count
                putSingle(gap: 1, count: bin.count)
            case 2:
                // Now a run: its first two bins written again as its start.
                runLength = 3
                packed.bytes.removeLast(packed.bytes.count - runOffset)
                put(runGap << 2 | 2)
                lengthOffset = packed.bytes.count
                packed.bytes.append(contentsOf: [0x80, 0x80, 0])
                put(UInt64(firstCounts.0 - 1))
                put(UInt64(firstCounts.1 - 1))
                put(UInt64(bin.count - 1))
            default:
                runLength += 1
                put(UInt64(bin.count - 1))
                if runLength == Self.maxRunLength { endRun() }
            }
        }

        /// The histogram, in no more bytes than it takes: room was made for
        /// the worst case (no bin shared), and a grid of 1,000 configs keeps
        /// 1,000 of these.
        consuming func finish() -> PackedLeads {
            endRun()
            if packed.bytes.capacity - packed.bytes.count > packed.bytes.count / 8 {
                packed.bytes = Array(packed.bytes[...])
            }
            return packed
        }

        /// Fills in the length of the run going on, if it is one; the next
        /// bin starts afresh.
        private mutating func endRun() {
            if runLength >= 3 {
                let n = runLength - 3
                packed.bytes[lengthOffset] = UInt8(truncatingIfNeeded: n) | 0x80
                packed.bytes[lengthOffset + 1] = UInt8(truncatingIfNeeded: n >> 7) | 0x80
                packed.bytes[lengthOffset + 2] = UInt8(truncatingIfNeeded: n >> 14)
            }
            runLength = 0
        }

        private mutating func putSingle(gap: UInt64, count: Int) {
            if count == 1 {
                put(gap << 2)
            } else {
                put(gap << 2 | 1)
                put(UInt64(count - 2))
            }
        }

        private mutating func put(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                packed.bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            packed.bytes.append(UInt8(v))
        }
    }
}
