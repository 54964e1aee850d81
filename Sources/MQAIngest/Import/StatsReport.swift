import MQABase
import MQAModel
import MQAStore

/// An exact stats number: the value × 10¹⁸ in an `Int128`.
///
/// The mapping rounds half up (seconds to ms, loss to hundredths, bitrate
/// to kbps); doing that on the decimal text the browser wrote, not on a
/// binary double, is what makes `0.0125 s` come out as 13 ms every time.
struct Fixed: Comparable, Hashable {
    var raw: Int128
    static let one: Int128 = 1_000_000_000_000_000_000
    static let zero = Fixed(raw: 0)

    init(raw: Int128) { self.raw = raw }
    init(integer: Int64) { raw = Int128(integer) * Fixed.one }

    /// The decimal's value; nil when it does not fit (over ~1.7e20) or is
    /// not a number at all.
    init?(_ d: DecimalNumber) {
        if d.isNull { return nil }
        if d.isBinary {
            guard let v = d.doubleValue, v.isFinite, abs(v) < 1e20 else { return nil }
            // Out-of-range decimals only: 18 places of a double are noise anyway.
            raw = Int128((v * 1e9).rounded()) * 1_000_000_000
            return
        }
        let e = Int(d.exponent) + 18
        if e >= 0 {
            // ≤ 10²⁰ in value: 10³⁸ in raw units, inside Int128.
            guard e < Fixed.powers.count else { return nil }
            let (v, overflow) = Int128(d.mantissa).multipliedReportingOverflow(by: Fixed.powers[e])
            guard !overflow, v.magnitude <= Fixed.limit else { return nil }
            raw = v
        } else {
            // Beyond 10⁻¹⁸: truncated, far below any rounding the mapping does.
            raw = -e < Fixed.powers.count ? Int128(d.mantissa) / Fixed.powers[-e] : 0
        }
    }

    /// A stats value: the decimal's value, and for a finite one beyond
    /// ±10²⁰ that bound (nil for null and a non-finite double). A counter of 1e300 is a
    /// number a browser wrote: read as missing, its interval had no
    /// packets and made no report at all, where the spec's rules (a
    /// counter that went back restarted) read it as a huge value.
    init?(saturating d: DecimalNumber) {
        if let exact = Fixed(d) {
            self = exact
            return
        }
        guard !d.isNull else { return nil }
        let negative = d.isBinary ? (d.doubleValue ?? 0) < 0 : d.mantissa < 0
        if d.isBinary, !(d.doubleValue?.isFinite ?? false) { return nil }
        raw = negative ? -Int128(Fixed.limit) : Int128(Fixed.limit)
    }

    /// 10⁰ … 10³⁸.
    static let powers: [Int128] = (0...38).map { p in (0..<p).reduce(Int128(1)) { r, _ in r * 10 } }
    static let limit = UInt128(100_000_000_000_000_000_000) * UInt128(1_000_000_000_000_000_000)

    static func < (a: Fixed, b: Fixed) -> Bool { a.raw < b.raw }
    static func + (a: Fixed, b: Fixed) -> Fixed { Fixed(raw: a.raw &+? b.raw) }
    static func - (a: Fixed, b: Fixed) -> Fixed { Fixed(raw: a.raw &-? b.raw) }

    /// Floor division that rounds toward −∞ for negative numerators too.
    static func floorDiv(_ a: Int128, _ b: Int128) -> Int128 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// ⌊x + ½⌋: the nearest integer, halves up.
    var roundedHalfUp: Int64 {
        Int64(clamping: Fixed.floorDiv((2 &*? raw) &+? Fixed.one, 2 * Fixed.one))
    }

    /// Seconds to milliseconds, halves up.
    var millisecondsHalfUp: Int64 { Fixed(raw: 1000 &*? raw).roundedHalfUp }

    var isPositive: Bool { raw > 0 }
}

// Saturating arithmetic: a hostile dump's 10²⁰ counters must give absurd
// figures (which validation then judges), never a trap.
infix operator &+?: AdditionPrecedence
infix operator &-?: AdditionPrecedence
infix operator &*?: MultiplicationPrecedence

extension Int128 {
    static func &+? (a: Int128, b: Int128) -> Int128 {
        let (v, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : v
    }

    static func &-? (a: Int128, b: Int128) -> Int128 {
        let (v, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : v
    }

    static func &*? (a: Int128, b: Int128) -> Int128 {
        let (v, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? ((a < 0) != (b < 0) ? .min : .max) : v
    }
}

/// The stats properties the mapping reads; every other one is skipped.
enum StatsProperty: Int, CaseIterable {
    case timestamp, type, kind, mediaType, isRemote
    case packetsLost, packetsReceived, bytesReceived, bytesSent
    case currentRoundTripTime, roundTripTime, jitter
    case trackIdentifier, trackId, ssrc, framesDecoded
    case selectedCandidatePairId, selected, nominated, state
    // Version 2: the sender's side, and freezes told from pauses.
    case packetsSent, fractionLost, freezeCount, totalFreezesDuration
    // Context only (the summary's connection lines), never the figures.
    case localCandidateId, candidateType, `protocol`, relayProtocol
    case qualityLimitationReason, concealedSamples, totalSamplesReceived, silentConcealedSamples
    // Placing an older Chrome's log times: how long the pair had been up.
    case responsesReceived
    // The far end hanging up (the transport's DTLS closed by its alert).
    case dtlsState

    static let names: [[UInt8]] = allCases.map { Array("\($0)".utf8) }

    /// The property named by `bytes`, matched without building a String
    /// (dumps hold millions of property names).
    static func match(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> StatsProperty? {
        let length = end - start
        guard length >= 4 && length <= 23 else { return nil }
        let first = s[start]
        for (i, name) in names.enumerated() where name.count == length && name[0] == first {
            var same = true
            for j in 1..<length where s[start + j] != name[j] { same = false; break }
            if same { return StatsProperty(rawValue: i) }
        }
        return nil
    }
}

/// A property's value as the mapping needs it.
enum StatsValue: Equatable {
    case number(Fixed)
    case text(String)
    case bool(Bool)

    /// A number, or a text that is one (`"123"`: a page that quoted its
    /// numbers gave bitrate 0 in silence); nil for anything else.
    var number: Fixed? {
        switch self {
        case .number(let v): v
        case .text(let t): StatsValue.numeric(t)
        case .bool: nil
        }
    }
    var text: String? { if case .text(let v) = self { v } else { nil } }

    /// A text that is exactly a JSON number, read exactly as one.
    static func numeric(_ t: String) -> Fixed? {
        guard let first = t.utf8.first, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39), t.utf8.count <= 64 else { return nil }
        var text = t
        return text.withUTF8 { b -> Fixed? in
            var p = 0
            guard case .number(let d)? = try? JSONWalker().scanScalar(b, &p, depth: 1), p == b.count else { return nil }
            return Fixed(saturating: d)
        }
    }
    var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
}

/// One stats report at one sample: its type and the properties the
/// mapping reads (absent ones are nil).
///
/// A dump's connection keeps every report of its last sample, about
/// half of them of types the mapping never reads (codecs, streams,
/// certificates, remote candidates): such a report keeps no values but
/// the `trackIdentifier` a `trackId` may point to, and a report allocates
/// its values only when it keeps one. On a dump of 1,000 connections at
/// once, the values were 74 of the 108 MB the importer held. (Packing
/// only the present values took 20 MB more off, but each lookup then
/// cost a population count or a second array: 5 % more instructions on
/// a webrtc-internals dump.)
struct StatsReport {
    var type: String { didSet { category = Category(type) } }
    /// The type as the mapping sorts it, decided once per report.
    private(set) var category: Category
    /// By `StatsProperty` raw value; empty until the report keeps a value.
    private var values: [StatsValue?] = []

    init(type: String) {
        self.type = type
        category = Category(type)
    }

    enum Category: Equatable {
        case inbound, outbound, remoteInbound, remoteOutbound, candidatePair, transport, localCandidate, legacy, other

        init(_ type: String) {
            switch type {
            case "inbound-rtp": self = .inbound
            case "outbound-rtp": self = .outbound
            case "remote-inbound-rtp": self = .remoteInbound
            case "remote-outbound-rtp": self = .remoteOutbound
            case "candidate-pair": self = .candidatePair
            case "transport": self = .transport
            case "local-candidate": self = .localCandidate
            case "ssrc", "VideoBwe": self = .legacy
            default: self = type.hasPrefix("goog") ? .legacy : .other
            }
        }

        /// Stamped by the remote side: aligned to the local samples.
        var isRemoteStamped: Bool { self == .remoteInbound || self == .remoteOutbound }
    }

    subscript(_ p: StatsProperty) -> StatsValue? {
        @inline(__always) get { values.isEmpty ? nil : values[p.rawValue] }
        set {
            // A type the mapping reads nothing of keeps only what a
            // `trackId` reference reads; an untyped report keeps all (its
            // type may come later). Clearing is always allowed.
            guard newValue == nil || category != .other || type.isEmpty || p == .trackIdentifier else { return }
            if values.isEmpty {
                guard newValue != nil else { return }
                values = [StatsValue?](repeating: nil, count: StatsProperty.allCases.count)
            }
            values[p.rawValue] = newValue
        }
    }

    @inline(__always) func number(_ p: StatsProperty) -> Fixed? { values.isEmpty ? nil : values[p.rawValue]?.number }
    func text(_ p: StatsProperty) -> String? { self[p]?.text }
    @inline(__always) func bool(_ p: StatsProperty) -> Bool? { values.isEmpty ? nil : values[p.rawValue]?.bool }

    var isLocalInbound: Bool { category == .inbound && bool(.isRemote) != true }
    var isLocalOutbound: Bool { category == .outbound && bool(.isRemote) != true }

    /// `kind`, else the older `mediaType`.
    func isKind(_ k: String) -> Bool { text(.kind) == k || text(.mediaType) == k }

    /// A scalar from a scan, as a value (nil for null and containers).
    static func value(_ scalar: JSONScalar, in s: UnsafeBufferPointer<UInt8>) -> StatsValue? {
        switch scalar {
        case .number(let d): return Fixed(saturating: d).map { .number($0) }
        case .string(let start, let end, let escaped):
            return .text(String(decoding: JSONScanner.stringBytes(s, start, end, escaped), as: UTF8.self))
        case .bool(let b): return .bool(b)
        case .null, .container: return nil
        }
    }
}

/// One sample of a peer connection: its time and the reports present then,
/// in the dump's order.
struct StatsSample {
    /// The sample's time, ms rounded half up (the events' `ts`).
    var ts: Int64
    /// The stats timestamp the bitrate interval runs between.
    var statsTime: Fixed
    var reports: [(id: String, report: StatsReport)]
}
