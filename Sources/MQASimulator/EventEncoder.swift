import MQABase
import MQAModel
import MQAAnalysis

/// Writes `LogEvent`s as event-log lines (Docs/event-log.md).
struct EventEncoder {
    let plan: MeetingPlan
    let me: Int
    let mobile: Bool
    let style: ClientStyle
    let profile: ClientProfile
    let errors: [String]
    private let uids: [[UInt8]]
    private var seq = 0

    static let tierNames: [StaticString] = ["excellent", "good", "fair", "poor", "bad"]
    static let tierNamesCapitalized: [StaticString] = ["Excellent", "Good", "Fair", "Poor", "Bad"]

    init(plan: MeetingPlan, me: Int, style: ClientStyle, profile: ClientProfile, errors: [String]) {
        self.plan = plan
        self.me = me
        self.mobile = plan.participants[me].mobile
        self.style = style
        self.profile = profile
        self.errors = errors
        uids = plan.participants.map(\.uidBytes)
    }

    private func ts(_ t: Int64, _ w: inout LineWriter) {
        switch style.time {
        case .epochMs: w.int(t)
        case .rfc3339: w.rfc3339(t)
        case .rfc3339Offset: w.rfc3339(t, offsetMinutes: 60)
        }
    }

    @inline(__always)
    private func uid(_ i: Int, _ w: inout LineWriter) {
        w.byte(UInt8(ascii: "\""))
        w.bytes(uids[i])
        w.byte(UInt8(ascii: "\""))
    }

    private func track(_ publisher: Int, screen: Bool, _ w: inout LineWriter) {
        w.raw(",\"publisher\":"); uid(publisher, &w)
        w.raw(",\"track\":\"")
        w.bytes(uids[publisher])
        if screen { w.raw("-screen\"") } else { w.raw("-cam\"") }
    }

    /// `event` names by kind number, from the event table.
    static let names: [[UInt8]] = {
        var names = [[UInt8]](repeating: [], count: 256)
        for d in EventCatalog.descriptors { names[Int(d.kind.rawValue)] = d.nameBytes }
        return names
    }()

    /// The known kind a payload is logged as; `nil` for the unknown events.
    func kind(of payload: Payload) -> EventKind? {
        switch payload {
        case .join: .meetingJoin
        case .leave: .meetingLeave
        case .disconnect: .disconnect
        case .reconnect: .reconnect
        case .quality, .coldQuality: .qualityReport
        case .tier: .connectionQualityChange
        case .speakers: .activeSpeakersChange
        case .subscribe: .streamSubscribe
        case .unsubscribe: .streamUnsubscribe
        case .streamStatus: .receiveStreamStatus
        case .userEnter: .userEnter
        case .userLeave: .userLeave
        case .meeting(let k):
            switch plan.events[k].kind {
            case .media: .memberMediaState
            case .titleChange: .roomTitleChange
            case .shareStart: .roomShareStart
            case .shareStop: .roomShareStop
            }
        case .context(let c): c.kind
        case .unknown: nil
        }
    }

    /// Appends one line (with its newline) for `e`.
    mutating func write(_ e: LogEvent, _ w: inout LineWriter) {
        w.byte(UInt8(ascii: "{"))
        if !style.tsLast { w.raw("\"ts\":"); ts(e.ts, &w); w.byte(UInt8(ascii: ",")) }
        w.raw("\"event\":\"")
        if let kind = kind(of: e.payload) {
            w.bytes(EventEncoder.names[Int(kind.rawValue)])
        } else if case .unknown(let kind, _) = e.payload {
            switch kind {
            case 0: w.raw("audio_level")
            case 1: w.raw("network_type_change")
            case 2: w.raw("sdk_log")
            default: w.raw("local_video_stats")
            }
        }
        w.raw("\",\"meeting\":\""); w.bytes(plan.idBytes)
        w.raw("\",\"uid\":"); uid(me, &w)
        payload(e.payload, &w)
        if style.extras {
            w.raw(",\"seq\":")
            w.int(seq)
        }
        seq += 1
        if style.tsLast { w.raw(",\"ts\":"); ts(e.ts, &w) }
        w.raw("}\n")
    }

    private func payload(_ p: Payload, _ w: inout LineWriter) {
        switch p {
        case .join(let title):
            switch plan.engine {
            case .sfu: w.raw(",\"engine\":\"sfu\"")
            case .cdn: w.raw(",\"engine\":\"cdn\"")
            case .p2p: w.raw(",\"engine\":\"p2p\"")
            }
            if let title { w.raw(",\"title\":"); w.string(plan.titles[title]) }
            if profile.logsClientFields {
                w.raw(",\"platform\":\""); w.raw(profile.platform)
                w.raw("\",\"osVersion\":\""); w.raw(profile.osVersion)
                w.raw("\",\"sdkVersion\":\""); w.raw(profile.sdkVersion)
                w.raw("\",\"appVersion\":\""); w.raw(profile.appVersion)
                w.raw("\",\"device\":\""); w.raw(profile.device)
                w.raw("\",\"netType\":\""); w.raw(profile.netType)
                w.byte(UInt8(ascii: "\""))
            }
        case .leave, .reconnect:
            break
        case .disconnect(let end):
            switch end {
            case .networkDrop(let error):
                w.raw(",\"reason\":\"network\",\"error\":"); w.string(errors[error])
            case .kicked: w.raw(",\"reason\":\"kicked\"")
            default: w.raw(",\"reason\":\"meeting_ended\"")
            }
        case .quality(let m):
            w.raw(",\"loss\":"); w.fixed(m.loss, decimals: m.loss < 10 ? 2 : 1)
            w.raw(",\"rtt\":"); w.int(m.rtt)
            w.raw(",\"jitter\":"); w.int(m.jitter)
            w.raw(",\"bitrate\":"); w.int(m.bitrate)
            w.raw(",\"mos\":"); w.fixed(m.mos, decimals: 2)
        case .coldQuality(let bitrate):
            w.raw(",\"loss\":0,\"rtt\":0,\"jitter\":0,\"bitrate\":"); w.int(bitrate)
            switch style.placeholder {
            case 0: w.raw(",\"mos\":0")
            case 1: w.raw(",\"mos\":null")
            default: w.raw(",\"mos\":4.5")
            }
        case .tier(let t):
            w.raw(",\"tier\":\"")
            w.raw(style.capitalizedTier ? Self.tierNamesCapitalized[t] : Self.tierNames[t])
            w.byte(UInt8(ascii: "\""))
        case .speakers(let k):
            let s = plan.speakers[k]
            w.raw(",\"speakers\":[")
            for i in 0..<s.count {
                if i > 0 { w.byte(UInt8(ascii: ",")) }
                uid(s.speaker(i), &w)
            }
            w.byte(UInt8(ascii: "]"))
        case .subscribe(let publisher, let screen):
            track(publisher, screen: screen, &w)
            w.raw(screen ? ",\"kind\":\"screen\"" : ",\"kind\":\"camera\"")
        case .unsubscribe(let publisher, let screen):
            track(publisher, screen: screen, &w)
        case .streamStatus(let publisher, let screen, let timedOut):
            track(publisher, screen: screen, &w)
            w.raw(timedOut ? ",\"timedOut\":true" : ",\"timedOut\":false")
        case .userEnter(let target), .userLeave(let target):
            w.raw(",\"target\":"); uid(target, &w)
        case .meeting(let k):
            meetingPayload(plan.events[k].kind, &w)
        case .context(let c):
            let fields = c.kind.descriptor.fields
            for (i, value) in [c.values.0, c.values.1, c.values.2].enumerated() {
                guard let value, i < fields.count else { continue }
                w.raw(",\"")
                w.bytes(fields[i].nameBytes)
                w.raw("\":\"")
                w.raw(value)
                w.byte(UInt8(ascii: "\""))
            }
        case .unknown(let kind, let value):
            switch kind {
            case 0: w.raw(",\"level\":"); w.fixed(Double(value % 100) / 100, decimals: 2)
            case 1: w.raw(value % 2 == 0 ? ",\"type\":\"wifi\"" : ",\"type\":\"cellular\"")
            case 2: w.raw(",\"level\":\"debug\",\"message\":\"ice candidate pair changed\"")
            default:
                w.raw(",\"fps\":"); w.int(10 + value % 21)
                w.raw(",\"width\":1280,\"height\":720")
            }
        }
    }

    private func meetingPayload(_ kind: MeetingEventKind, _ w: inout LineWriter) {
        switch kind {
        case .media(let target, let camera, let on, let byAdmin):
            w.raw(",\"target\":"); uid(target, &w)
            w.raw(camera ? ",\"media\":\"camera\"" : ",\"media\":\"mic\"")
            w.raw(on ? ",\"on\":true" : ",\"on\":false")
            if byAdmin {
                w.raw(",\"byAdmin\":true,\"opUid\":"); uid(plan.host, &w)
            } else {
                w.raw(",\"byAdmin\":false")
            }
        case .titleChange(let title, let previous):
            w.raw(",\"title\":"); w.string(plan.titles[title])
            w.raw(",\"previousTitle\":"); w.string(plan.titles[previous])
        case .shareStart(let publisher), .shareStop(let publisher):
            w.raw(",\"publisher\":"); uid(publisher, &w)
        }
    }
}
