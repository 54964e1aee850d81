import MQABase

/// A lead-time histogram (`TuningCounts.leads`) packed for keeping across
/// batches (`TuningTally`): each bin as two LEB128 varints, the gap from the
/// previous bin's ms and its count less one. A bin takes 2–4 bytes instead
/// of 16: a fleet's config holds ~30,000 bins, and a grid may hold
/// thousands of configs.
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
        var writer = Writer(reservingCapacity: 3 * bins.count)
        for bin in bins { writer.append(bin) }
        self = writer.packed
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
        var writer = Writer(reservingCapacity: bytes.count + 3 * other.count)
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
        return writer.packed
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
            ms += Int64(bitPattern: varint())
            let count = Int(varint()) + 1
            body(TuningCounts.LeadBin(ms: ms, count: count))
        }
    }

    private struct Writer {
        var packed = PackedLeads()
        var lastMs: Int64 = 0

        init(reservingCapacity n: Int) { packed.bytes.reserveCapacity(n) }

        mutating func append(_ bin: TuningCounts.LeadBin) {
            put(UInt64(bitPattern: bin.ms - lastMs))
            put(UInt64(bin.count - 1))
            lastMs = bin.ms
            packed.count += bin.count
            packed.binCount += 1
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
