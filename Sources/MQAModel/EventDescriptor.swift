import MQABase

/// The one table of the events the pipeline understands (`Docs/event-log.md`).
///
/// Each row gives a kind's stored number, its `event` name and its payload
/// fields with their types. Everything else derives from it: validation
/// (`LineParser`), the payload (`EventPayload`), canonical JSON (the stored
/// form and the duplicate key), the scanner's field keys, the `event_kinds`
/// rows of the schema (checked by a test), export, and the simulator's
/// encoding. Adding a kind with plain fields means adding a row here (and
/// its `EventKind` constant below); the analysis that uses it reads the
/// fields by name.
///
/// Stored data depends on this table: never renumber a kind, and never
/// reorder or rename the fields of an existing kind (the field order is the
/// canonical JSON order, which is the duplicate key of stored events).
public enum EventCatalog {
    public static let descriptors: [EventDescriptor] = [
        // The client fields of format 1.2 come after the older ones, so that
        // a join without them keeps its canonical bytes.
        .init(1, "meeting_join", [
            .oneOf("engine", ["sfu", "cdn", "p2p"]), .string("title", optional: true),
            .oneOf("platform", ["ios", "android", "macos", "windows", "linux", "web"], optional: true),
            .text("osVersion", optional: true), .text("sdkVersion", optional: true), .text("appVersion", optional: true),
            .text("device", optional: true), .oneOf("netType", EventCatalog.netTypes, optional: true),
        ]),
        .init(2, "meeting_leave", []),
        .init(3, "disconnect", [.string("reason"), .string("error", optional: true)]),
        .init(4, "reconnect", []),
        .init(5, "quality_report", [
            .number("loss", .percent), .number("rtt", .nonNegative), .number("jitter", .nonNegative),
            .number("bitrate", .nonNegative), .number("mos", .mos),
        ]),
        .init(6, "connection_quality_change", [.string("tier")]),
        // A field the spec types "uid" (`publisher`, `target`, `opUid`,
        // the speakers) is a uid as the envelope's is: 1–256 characters.
        .init(7, "active_speakers_change", [.strings("speakers")]),
        .init(8, "stream_subscribe", [.text("publisher"), .string("track"), .oneOf("kind", ["camera", "screen"])]),
        .init(9, "stream_unsubscribe", [.text("publisher"), .string("track")]),
        .init(10, "receive_stream_status", [.text("publisher"), .string("track"), .bool("timedOut")]),
        .init(11, "user_enter", [.text("target")]),
        .init(12, "user_leave", [.text("target")]),
        .init(13, "member_media_state", [
            .text("target"), .oneOf("media", ["mic", "camera"]), .bool("on"), .bool("byAdmin"),
            .text("opUid", optional: true),
        ]),
        .init(14, "room_title_change", [.string("title"), .string("previousTitle")]),
        .init(15, "room_share_start", [.text("publisher")]),
        .init(16, "room_share_stop", [.text("publisher")]),
        // Context events, format version 1.1: shown in reports, used by no figure.
        .init(17, "audio_route_change", [.string("route"), .string("reason")], context: true),
        .init(18, "audio_interruption", [.oneOf("phase", ["began", "ended"])], context: true),
        .init(19, "device_change", [
            .oneOf("kind", ["camera", "mic", "speaker"]), .oneOf("change", ["added", "removed", "default"]),
            .string("device", optional: true),
        ], context: true),
        .init(20, "sub_meeting_move", [.text("target"), .string("reason", optional: true)], context: true),
        .init(21, "user_handup", [.oneOf("step", ["request", "cancel", "confirmOpen", "rejectOpen"])], context: true),
        .init(22, "share_broadcast_start", [], context: true),
        .init(23, "share_broadcast_stop", [], context: true),
        // Format 1.2: the client's network changed mid-call (context only).
        .init(24, "network_change", [.oneOf("netType", EventCatalog.netTypes), .text("detail", optional: true)], context: true),
    ]

    /// The closed list of `netType` (format 1.2), on `meeting_join` and `network_change`.
    public static let netTypes = ["wifi", "cellular", "ethernet", "other", "none"]

    /// The engines whose meetings have a quality feed (`quality_report`,
    /// `connection_quality_change`, speakers): all but `cdn`. `p2p` (format
    /// 1.2) has the feed as `sfu` does.
    public static func hasQualityFeed(engine: String?) -> Bool { engine != "cdn" }

    /// Descriptors by stored kind number (`nil` where no kind is defined).
    static let byRawValue: [EventDescriptor?] = {
        var table = [EventDescriptor?](repeating: nil, count: 256)
        for d in descriptors {
            precondition(table[Int(d.kind.rawValue)] == nil, "kind \(d.kind.rawValue) defined twice")
            table[Int(d.kind.rawValue)] = d
        }
        return table
    }()

    static let byName: [[UInt8]: EventKind] = Dictionary(
        uniqueKeysWithValues: descriptors.map { ($0.nameBytes, $0.kind) })
}

/// The kinds by name, for code that switches on them. Each constant's
/// number is its row's in `EventCatalog.descriptors` (a test checks every
/// row has a kind and every kind a row).
extension EventKind {
    public static let meetingJoin = EventKind(1)
    public static let meetingLeave = EventKind(2)
    public static let disconnect = EventKind(3)
    public static let reconnect = EventKind(4)
    public static let qualityReport = EventKind(5)
    public static let connectionQualityChange = EventKind(6)
    public static let activeSpeakersChange = EventKind(7)
    public static let streamSubscribe = EventKind(8)
    public static let streamUnsubscribe = EventKind(9)
    public static let receiveStreamStatus = EventKind(10)
    public static let userEnter = EventKind(11)
    public static let userLeave = EventKind(12)
    public static let memberMediaState = EventKind(13)
    public static let roomTitleChange = EventKind(14)
    public static let roomShareStart = EventKind(15)
    public static let roomShareStop = EventKind(16)
    public static let audioRouteChange = EventKind(17)
    public static let audioInterruption = EventKind(18)
    public static let deviceChange = EventKind(19)
    public static let subMeetingMove = EventKind(20)
    public static let userHandup = EventKind(21)
    public static let shareBroadcastStart = EventKind(22)
    public static let shareBroadcastStop = EventKind(23)
    public static let networkChange = EventKind(24)

    /// Every constant above, to check against the table.
    static let named: [EventKind] = [
        .meetingJoin, .meetingLeave, .disconnect, .reconnect, .qualityReport, .connectionQualityChange,
        .activeSpeakersChange, .streamSubscribe, .streamUnsubscribe, .receiveStreamStatus, .userEnter, .userLeave,
        .memberMediaState, .roomTitleChange, .roomShareStart, .roomShareStop, .audioRouteChange, .audioInterruption,
        .deviceChange, .subMeetingMove, .userHandup, .shareBroadcastStart, .shareBroadcastStop, .networkChange,
    ]
}

/// A known event kind: its stored number. Its name and fields are in its
/// `descriptor`.
public struct EventKind: RawRepresentable, Hashable, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    /// A kind of the table; `nil` for numbers it does not define.
    public init?(rawValue: UInt8) {
        guard EventCatalog.byRawValue[Int(rawValue)] != nil else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static var allCases: [EventKind] { EventCatalog.descriptors.map(\.kind) }

    public var descriptor: EventDescriptor { EventCatalog.byRawValue[Int(rawValue)]! }

    /// The `event` string of the log format.
    public var name: String { descriptor.name }

    /// A 1.1 context event: kept apart from the events the figures use.
    public var isContext: Bool { descriptor.isContext }

    /// Looks up an `event` string; `nil` for events this version does not know.
    public init?(name: String) {
        guard let kind = EventCatalog.byName[Array(name.utf8)] else { return nil }
        self = kind
    }

    public static func < (a: EventKind, b: EventKind) -> Bool { a.rawValue < b.rawValue }
    public var description: String { name }

    fileprivate static func defined(_ rawValue: UInt8) -> EventKind { EventKind(rawValue) }
}

/// One row of `EventCatalog`. A class, so that passing one around on the
/// ingest path costs one reference count, not one per field.
public final class EventDescriptor: Sendable {
    public let kind: EventKind
    /// The `event` string.
    public let name: String
    /// Payload fields in canonical order.
    public let fields: [PayloadField]
    /// A context event of format 1.1.
    public let isContext: Bool
    /// `name` as UTF-8, for writers that work in bytes.
    public let nameBytes: [UInt8]
    /// Each field's `"name":` back to back, field i ending at `keyEnds[i]`:
    /// what the canonical writer copies, with no String in the loop.
    let keyBytes: [UInt8]
    let keyEnds: [Int]
    /// Each field's type as a small tag (see `PayloadField.tag`).
    let tags: [UInt8]

    init(_ raw: UInt8, _ name: String, _ fields: [PayloadField], context: Bool = false) {
        kind = EventKind.defined(raw)
        self.name = name
        self.fields = fields
        isContext = context
        nameBytes = Array(name.utf8)
        var keys: [UInt8] = []
        var ends: [Int] = []
        for f in fields {
            keys += Array("\"\(f.name)\":".utf8)
            ends.append(keys.count)
        }
        keyBytes = keys
        keyEnds = ends
        tags = fields.map(\.tag)
    }

    /// The index of the field called `name`.
    public func index(of name: String) -> Int? { fields.firstIndex { $0.name == name } }
}

/// A payload field: its JSON key, its type, whether it may be left out.
public struct PayloadField: Sendable {
    public enum FieldType: Sendable, Equatable {
        /// Any string.
        case string
        /// A string of 1–256 characters (Unicode code points, escapes
        /// decoded), as the envelope's ids: a uid or meeting id in the
        /// payload, and the client fields of format 1.2.
        case text
        /// A string from a closed list; anything else is rejected.
        case oneOf([String])
        case bool
        /// An array of uids (`speakers`), each of 1–256 characters.
        case strings
        /// A quality report value (stored as an exact decimal in report chunks).
        case number(NumberRule)
    }

    /// The range rule of a quality report value.
    public enum NumberRule: Sendable, Equatable {
        /// 0–100.
        case percent
        /// ≥ 0.
        case nonNegative
        /// 1–5, or 0/null for "not available"; must be present.
        case mos
    }

    public let name: String
    public let type: FieldType
    /// May be absent (or `null`).
    public let optional: Bool
    /// The allowed values of a `.oneOf` field as UTF-8, for byte compares.
    let allowedBytes: [[UInt8]]
    /// `name` as UTF-8.
    public let nameBytes: [UInt8]

    init(_ name: String, _ type: FieldType, optional: Bool = false) {
        self.name = name
        self.type = type
        self.optional = optional
        nameBytes = Array(name.utf8)
        if case .oneOf(let values) = type { allowedBytes = values.map { Array($0.utf8) } } else { allowedBytes = [] }
    }

    /// 0 string, 1 closed list, 2 bool, 3 strings, 4 number, 5 string of
    /// 1–256 characters: a trivial value for hot loops to switch on.
    var tag: UInt8 {
        switch type {
        case .string: 0
        case .oneOf: 1
        case .bool: 2
        case .strings: 3
        case .number: 4
        case .text: 5
        }
    }

    static func string(_ name: String, optional: Bool = false) -> PayloadField { .init(name, .string, optional: optional) }
    static func text(_ name: String, optional: Bool = false) -> PayloadField { .init(name, .text, optional: optional) }
    static func oneOf(_ name: String, _ values: [String], optional: Bool = false) -> PayloadField {
        .init(name, .oneOf(values), optional: optional)
    }
    static func bool(_ name: String) -> PayloadField { .init(name, .bool) }
    static func strings(_ name: String) -> PayloadField { .init(name, .strings) }
    static func number(_ name: String, _ rule: NumberRule) -> PayloadField { .init(name, .number(rule)) }
}
