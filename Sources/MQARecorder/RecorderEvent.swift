/// The events the recorder writes, with the `event` names and payload keys of
/// the event-log format (version 1.2). The recorder cannot import the
/// pipeline, so this table is its copy of the contract; a test checks it
/// against the pipeline's own list and validator.
public enum RecorderEvent: UInt8, CaseIterable, Sendable {
    case meetingJoin
    case meetingLeave
    case disconnect
    case reconnect
    case qualityReport
    case connectionQualityChange
    case activeSpeakersChange
    case streamSubscribe
    case streamUnsubscribe
    case receiveStreamStatus
    case userEnter
    case userLeave
    case memberMediaState
    case roomTitleChange
    case roomShareStart
    case roomShareStop
    // Context events, format 1.1.
    case audioRouteChange
    case audioInterruption
    case deviceChange
    case subMeetingMove
    case userHandup
    case shareBroadcastStart
    case shareBroadcastStop
    // Format 1.2.
    case networkChange
    /// Not an SDK event: how many events the recorder dropped. The pipeline
    /// does not know it, so ingest counts it as ignored.
    case recorderDropped

    /// The `event` string written to the log.
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
        case .audioRouteChange: "audio_route_change"
        case .audioInterruption: "audio_interruption"
        case .deviceChange: "device_change"
        case .subMeetingMove: "sub_meeting_move"
        case .userHandup: "user_handup"
        case .shareBroadcastStart: "share_broadcast_start"
        case .shareBroadcastStop: "share_broadcast_stop"
        case .networkChange: "network_change"
        case .recorderDropped: "recorder_dropped"
        }
    }

    /// Payload keys always written, in the order written.
    public var requiredFields: [String] {
        switch self {
        case .meetingJoin: ["engine"]
        case .meetingLeave, .reconnect, .shareBroadcastStart, .shareBroadcastStop: []
        case .disconnect: ["reason"]
        case .qualityReport: ["loss", "rtt", "jitter", "bitrate", "mos"]
        case .connectionQualityChange: ["tier"]
        case .activeSpeakersChange: ["speakers"]
        case .streamSubscribe: ["publisher", "track", "kind"]
        case .streamUnsubscribe: ["publisher", "track"]
        case .receiveStreamStatus: ["publisher", "track", "timedOut"]
        case .userEnter, .userLeave: ["target"]
        case .memberMediaState: ["target", "media", "on", "byAdmin"]
        case .roomTitleChange: ["title", "previousTitle"]
        case .roomShareStart, .roomShareStop: ["publisher"]
        case .audioRouteChange: ["route", "reason"]
        case .audioInterruption: ["phase"]
        case .deviceChange: ["kind", "change"]
        case .subMeetingMove: ["target"]
        case .userHandup: ["step"]
        case .networkChange: ["netType"]
        case .recorderDropped: ["dropped", "totalDropped"]
        }
    }

    /// Payload keys written only when the SDK gave a value.
    public var optionalFields: [String] {
        switch self {
        case .meetingJoin: ["title", "platform", "osVersion", "sdkVersion", "appVersion", "device", "netType"]
        case .disconnect: ["error"]
        case .memberMediaState: ["opUid"]
        case .deviceChange: ["device"]
        case .subMeetingMove: ["reason"]
        case .networkChange: ["detail"]
        default: []
        }
    }

    /// Whether this is one of the format's events (all but `recorder_dropped`).
    public var isLogEvent: Bool { self != .recorderDropped }
}

/// The engine a meeting runs on (`meeting_join.engine`).
public enum MeetingEngine: UInt8, Sendable {
    /// `p2p` (format 1.2): a direct peer connection, with a quality feed as on the SFU.
    case sfu, cdn, p2p
    var name: String {
        switch self {
        case .sfu: "sfu"
        case .cdn: "cdn"
        case .p2p: "p2p"
        }
    }
}

/// The client's platform (`meeting_join.platform`, format 1.2).
public enum ClientPlatform: UInt8, Sendable, CaseIterable {
    case ios, android, macos, windows, linux, web
    var name: String {
        switch self {
        case .ios: "ios"
        case .android: "android"
        case .macos: "macos"
        case .windows: "windows"
        case .linux: "linux"
        case .web: "web"
        }
    }
}

/// The client's network (`netType` of `meeting_join` and `network_change`, format 1.2).
public enum NetworkType: UInt8, Sendable, CaseIterable {
    case wifi, cellular, ethernet, other, none
    var name: String {
        switch self {
        case .wifi: "wifi"
        case .cellular: "cellular"
        case .ethernet: "ethernet"
        case .other: "other"
        case .none: "none"
        }
    }
}

/// What a subscribed video track carries (`stream_subscribe.kind`).
public enum StreamKind: UInt8, Sendable {
    case camera, screen
    var name: String { self == .camera ? "camera" : "screen" }
}

/// Which of a member's media changed (`member_media_state.media`).
public enum MemberMedia: UInt8, Sendable {
    case mic, camera
    var name: String { self == .mic ? "mic" : "camera" }
}

/// `audio_interruption.phase`. Record `.ended` once audio has actually
/// recovered, not when the system first says the interruption is over.
public enum AudioInterruptionPhase: UInt8, Sendable {
    case began, ended
    var name: String { self == .began ? "began" : "ended" }
}

/// `device_change.kind`.
public enum DeviceKind: UInt8, Sendable {
    case camera, mic, speaker
    var name: String {
        switch self {
        case .camera: "camera"
        case .mic: "mic"
        case .speaker: "speaker"
        }
    }
}

/// `device_change.change`: a device appeared, went away, or became the default.
public enum DeviceChange: UInt8, Sendable {
    case added, removed, `default`
    var name: String {
        switch self {
        case .added: "added"
        case .removed: "removed"
        case .default: "default"
        }
    }
}

/// `user_handup.step`, as in the SDK's `UserHandupEventData`.
public enum HandupStep: UInt8, Sendable {
    case request, cancel, confirmOpen, rejectOpen
    var name: String {
        switch self {
        case .request: "request"
        case .cancel: "cancel"
        case .confirmOpen: "confirmOpen"
        case .rejectOpen: "rejectOpen"
        }
    }
}
