/// The events the pipeline understands (see `Docs/event-log.md`). The raw
/// values are stored in the database: never renumber them.
public enum EventKind: UInt8, CaseIterable, Sendable {
    case meetingJoin = 1
    case meetingLeave = 2
    case disconnect = 3
    case reconnect = 4
    case qualityReport = 5
    case connectionQualityChange = 6
    case activeSpeakersChange = 7
    case streamSubscribe = 8
    case streamUnsubscribe = 9
    case receiveStreamStatus = 10
    case userEnter = 11
    case userLeave = 12
    case memberMediaState = 13
    case roomTitleChange = 14
    case roomShareStart = 15
    case roomShareStop = 16

    /// The `event` string of the log format.
    public var name: String {
        switch self {
        case .meetingJoin: "meeting_join"
        case .meetingLeave: "meeting_leave"
        case .disconnect: "disconnect"
        case .reconnect: "reconnect"
        case .qualityReport: "quality_report"
        case .connectionQualityChange: "connection_quality_change"
        case .activeSpeakersChange: "active_speakers_change"
        case .streamSubscribe: "stream_subscribe"
        case .streamUnsubscribe: "stream_unsubscribe"
        case .receiveStreamStatus: "receive_stream_status"
        case .userEnter: "user_enter"
        case .userLeave: "user_leave"
        case .memberMediaState: "member_media_state"
        case .roomTitleChange: "room_title_change"
        case .roomShareStart: "room_share_start"
        case .roomShareStop: "room_share_stop"
        }
    }

    /// Looks up an `event` string; `nil` for events this version does not know.
    public init?(name: String) {
        guard let kind = EventKind.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }
}
