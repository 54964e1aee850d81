import MQABase
import MQAModel

/// A block of timestamped records with a kind byte and an opaque payload:
/// the non-numeric events of one client.
///
/// The payloads lie back to back in one array, so a block of any size is a
/// few allocations: as an array per event, allocating, copying and freeing
/// them was about a sixth of the ingest writer's instructions.
public struct EventBlock: Equatable, Sendable {
    public internal(set) var ts: [Int64] = []
    public internal(set) var kinds: [UInt8] = []
    /// Every payload's bytes, in event order.
    public internal(set) var payloadBytes: [UInt8] = []
    /// Where each event's payload ends in `payloadBytes` (it starts where
    /// the one before ends).
    public internal(set) var payloadEnds: [Int] = []
    /// Per event, its place among the client's quality reports of the same
    /// millisecond (`TimedEvent.reportsBefore`): 0 for nearly all,
    /// `TimedEvent.byKind` where unknown.
    public internal(set) var reportsBefore: [UInt32] = []

    public init() {}

    /// A block of the given events; the arrays have equal lengths, and an
    /// empty `reportsBefore` leaves every place unknown.
    public init(ts: [Int64], kinds: [UInt8], payloads: [[UInt8]], reportsBefore: [UInt32] = []) {
        precondition(kinds.count == ts.count && payloads.count == ts.count, "ragged event block")
        precondition(reportsBefore.isEmpty || reportsBefore.count == ts.count, "ragged event block")
        reserveCapacity(ts.count, payloadBytes: payloads.reduce(0) { $0 + $1.count })
        for i in ts.indices {
            append(ts: ts[i], kind: kinds[i], payload: payloads[i],
                   reportsBefore: reportsBefore.isEmpty ? TimedEvent.byKind : reportsBefore[i])
        }
    }

    public var count: Int { ts.count }

    public mutating func reserveCapacity(_ events: Int, payloadBytes bytes: Int) {
        ts.reserveCapacity(events)
        kinds.reserveCapacity(events)
        payloadEnds.reserveCapacity(events)
        reportsBefore.reserveCapacity(events)
        payloadBytes.reserveCapacity(bytes)
    }

    // Concrete payload types, not `some Collection<UInt8>`: called from
    // another module, the generic one ran unspecialized (~1,100
    // instructions an event).

    public mutating func append(ts t: Int64, kind: UInt8, payload: UnsafeRawBufferPointer,
                                reportsBefore place: UInt32 = TimedEvent.byKind) {
        ts.append(t)
        kinds.append(kind)
        payloadBytes.append(contentsOf: payload)
        payloadEnds.append(payloadBytes.count)
        reportsBefore.append(place)
    }

    public mutating func append(ts t: Int64, kind: UInt8, payload: ArraySlice<UInt8>,
                                reportsBefore place: UInt32 = TimedEvent.byKind) {
        payload.withUnsafeBytes { append(ts: t, kind: kind, payload: $0, reportsBefore: place) }
    }

    public mutating func append(ts t: Int64, kind: UInt8, payload: [UInt8],
                                reportsBefore place: UInt32 = TimedEvent.byKind) {
        payload.withUnsafeBytes { append(ts: t, kind: kind, payload: $0, reportsBefore: place) }
    }

    /// Appends event `i` of `other` (a merge or a sort takes them one by one).
    public mutating func append(_ other: EventBlock, at i: Int) {
        other.withPayload(i) {
            append(ts: other.ts[i], kind: other.kinds[i], payload: $0, reportsBefore: other.reportsBefore[i])
        }
    }

    /// Sets event `i`'s place among its millisecond's reports.
    mutating func setReportsBefore(_ i: Int, _ place: UInt32) { reportsBefore[i] = place }

    /// Appends events `range` of `other`, in order.
    public mutating func append(_ other: EventBlock, range: Range<Int>) {
        guard !range.isEmpty else { return }
        ts += other.ts[range]
        kinds += other.kinds[range]
        reportsBefore += other.reportsBefore[range]
        let bytes = other.payloadRange(range.lowerBound).lowerBound..<other.payloadEnds[range.upperBound - 1]
        let shift = payloadBytes.count - bytes.lowerBound
        payloadBytes += other.payloadBytes[bytes]
        // No reserveCapacity(count + n) here: an exact reservation per call
        // made appending chunk after chunk quadratic; appending grows
        // geometrically.
        for i in range { payloadEnds.append(other.payloadEnds[i] + shift) }
    }

    /// Where event `i`'s payload lies in `payloadBytes`.
    @inline(__always)
    public func payloadRange(_ i: Int) -> Range<Int> {
        (i == 0 ? 0 : payloadEnds[i - 1])..<payloadEnds[i]
    }

    public func payload(_ i: Int) -> ArraySlice<UInt8> { payloadBytes[payloadRange(i)] }

    /// Calls `body` with event `i`'s payload bytes, valid only within.
    public func withPayload<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let r = payloadRange(i)
        return try payloadBytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[r])) }
    }

    /// Whether event `i` and event `j` of `other` have the same kind and payload.
    public func same(_ i: Int, _ other: EventBlock, _ j: Int) -> Bool {
        kinds[i] == other.kinds[j] && payload(i) == other.payload(j)
    }

    /// Each event's payload as an array of its own (for tests and cold paths).
    public var payloads: [[UInt8]] { (0..<count).map { Array(payload($0)) } }
}

/// An event block as decoded for reading, each distinct (kind, payload)
/// held once: event i's payload is `payloads[payloadIndex[i]]`. A client's
/// events repeat themselves (the same speaker list, stream status, tier),
/// so a reader that turns payload bytes into values does that once per
/// distinct payload, and decoding allocates one array per distinct
/// payload instead of one per event.
public struct SharedEventBlock: Sendable {
    public var ts: [Int64] = []
    public var kinds: [UInt8] = []
    public var payloadIndex: [Int32] = []
    public var payloads: [[UInt8]] = []
    /// As `EventBlock.reportsBefore`.
    public var reportsBefore: [UInt32] = []

    public init() {}

    /// Each event with its own payload entry (no sharing).
    public init(_ block: EventBlock) {
        ts = block.ts
        kinds = block.kinds
        reportsBefore = block.reportsBefore
        payloads = block.payloads
        payloadIndex = (0..<Int32(block.count)).map { $0 }
    }

    /// The plain block.
    public var expanded: EventBlock {
        var block = EventBlock()
        block.reserveCapacity(ts.count, payloadBytes: payloadIndex.reduce(0) { $0 + payloads[Int($1)].count })
        for i in ts.indices {
            block.append(ts: ts[i], kind: kinds[i], payload: payloads[Int(payloadIndex[i])], reportsBefore: reportsBefore[i])
        }
        return block
    }
}

