import MQABase

/// One quality report's measured values, as `Double`s exactly as JSON parsing
/// rounds the logged decimal text.
public struct QualityReport: Hashable, Sendable {
    /// Packet loss in percent, 0...100.
    public var loss: Double
    /// Round-trip time in ms; 0 means "not measured yet".
    public var rtt: Double
    public var jitter: Double
    /// Bitrate in kbps.
    public var bitrate: Double
    /// The SDK's MOS; `nil` when the log had `null`. `0` is kept as `0`.
    public var mos: Double?

    public init(loss: Double, rtt: Double, jitter: Double, bitrate: Double, mos: Double?) {
        self.loss = loss
        self.rtt = rtt
        self.jitter = jitter
        self.bitrate = bitrate
        self.mos = mos
    }
}

/// The value of one payload field.
public enum PayloadValue: Hashable, Sendable {
    /// An optional field that was left out (or logged as `null`).
    case absent
    case string(String)
    case bool(Bool)
    case strings([String])
    /// A quality report value; `nil` for a `null` MOS.
    case number(Double?)
}

/// The payload of a known event: one value per field of its kind's
/// descriptor, in the descriptor's order. Unknown extra fields are not kept
/// (they never affect any result).
public struct EventPayload: Hashable, Sendable {
    public let kind: EventKind
    /// `values[i]` belongs to `kind.descriptor.fields[i]`.
    public let values: [PayloadValue]

    /// A payload from its values in descriptor order.
    public init(kind: EventKind, values: [PayloadValue]) {
        precondition(values.count == kind.descriptor.fields.count, "\(kind.name) takes \(kind.descriptor.fields.count) values")
        self.kind = kind
        self.values = values
    }

    /// A payload from values by field name; fields not given are absent.
    public init(_ kind: EventKind, _ fields: [String: PayloadValue] = [:]) {
        let d = kind.descriptor
        precondition(fields.keys.allSatisfy { d.index(of: $0) != nil }, "unknown field for \(kind.name): \(fields.keys)")
        self.init(kind: kind, values: d.fields.map { fields[$0.name] ?? .absent })
    }

    /// The value of the field called `name` (`.absent` for a field the kind
    /// does not have).
    public subscript(_ name: String) -> PayloadValue {
        guard let i = kind.descriptor.index(of: name) else { return .absent }
        return values[i]
    }

    public func string(_ name: String) -> String? {
        if case .string(let s) = self[name] { return s }
        return nil
    }

    public func bool(_ name: String) -> Bool? {
        if case .bool(let b) = self[name] { return b }
        return nil
    }

    public func strings(_ name: String) -> [String]? {
        if case .strings(let s) = self[name] { return s }
        return nil
    }
}

/// Typed constructors for the kinds of format version 1, so that tests and
/// fixtures read like the log. Kinds added later are built with
/// `EventPayload(kind, [name: value])`.
extension EventPayload {
    public static func meetingJoin(engine: String, title: String?) -> EventPayload {
        EventPayload(.meetingJoin, ["engine": .string(engine), "title": title.map(PayloadValue.string) ?? .absent])
    }
    public static let meetingLeave = EventPayload(.meetingLeave)
    public static func disconnect(reason: String, error: String?) -> EventPayload {
        EventPayload(.disconnect, ["reason": .string(reason), "error": error.map(PayloadValue.string) ?? .absent])
    }
    public static let reconnect = EventPayload(.reconnect)
    public static func qualityReport(_ r: QualityReport) -> EventPayload {
        EventPayload(kind: .qualityReport, values: [.number(r.loss), .number(r.rtt), .number(r.jitter), .number(r.bitrate), .number(r.mos)])
    }
    public static func connectionQualityChange(tier: String) -> EventPayload {
        EventPayload(.connectionQualityChange, ["tier": .string(tier)])
    }
    public static func activeSpeakersChange(speakers: [String]) -> EventPayload {
        EventPayload(.activeSpeakersChange, ["speakers": .strings(speakers)])
    }
    public static func streamSubscribe(publisher: String, track: String, kind: String) -> EventPayload {
        EventPayload(.streamSubscribe, ["publisher": .string(publisher), "track": .string(track), "kind": .string(kind)])
    }
    public static func streamUnsubscribe(publisher: String, track: String) -> EventPayload {
        EventPayload(.streamUnsubscribe, ["publisher": .string(publisher), "track": .string(track)])
    }
    public static func receiveStreamStatus(publisher: String, track: String, timedOut: Bool) -> EventPayload {
        EventPayload(.receiveStreamStatus, ["publisher": .string(publisher), "track": .string(track), "timedOut": .bool(timedOut)])
    }
    public static func userEnter(target: String) -> EventPayload { EventPayload(.userEnter, ["target": .string(target)]) }
    public static func userLeave(target: String) -> EventPayload { EventPayload(.userLeave, ["target": .string(target)]) }
    public static func memberMediaState(target: String, media: String, on: Bool, byAdmin: Bool, opUid: String?) -> EventPayload {
        EventPayload(.memberMediaState, [
            "target": .string(target), "media": .string(media), "on": .bool(on), "byAdmin": .bool(byAdmin),
            "opUid": opUid.map(PayloadValue.string) ?? .absent,
        ])
    }
    public static func roomTitleChange(title: String, previousTitle: String) -> EventPayload {
        EventPayload(.roomTitleChange, ["title": .string(title), "previousTitle": .string(previousTitle)])
    }
    public static func roomShareStart(publisher: String) -> EventPayload { EventPayload(.roomShareStart, ["publisher": .string(publisher)]) }
    public static func roomShareStop(publisher: String) -> EventPayload { EventPayload(.roomShareStop, ["publisher": .string(publisher)]) }
}

/// A payload with the client time it fired at (ms since the Unix epoch).
public struct TimedEvent: Hashable, Sendable {
    public var ts: Int64
    public var payload: EventPayload
    /// How many of the client's quality reports of the same millisecond
    /// were logged before this event ("equal `ts` keep input order"): the
    /// event comes right before the report of that number, or after them
    /// all. Reports and events are stored apart, so this is how their
    /// order survives. `byKind`, the place of an event whose order is
    /// unknown (stored before places were), leaves it to the kind: a join
    /// or reconnect before the millisecond's reports, any other event
    /// after them.
    public var reportsBefore: UInt32

    /// See `reportsBefore`.
    public static let byKind = UInt32.max

    public init(ts: Int64, payload: EventPayload, reportsBefore: UInt32 = TimedEvent.byKind) {
        self.ts = ts
        self.payload = payload
        self.reportsBefore = reportsBefore
    }
}
