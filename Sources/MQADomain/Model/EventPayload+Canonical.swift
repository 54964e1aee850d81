/// The canonical JSON text of a payload: the spec's fields in the spec's
/// order, optional fields left out when absent, strings minimally escaped.
/// It is both the stored form (readable with `json_extract`) and the
/// duplicate key, so two lines that differ only in field order, extra fields
/// or number spelling map to the same text.
extension EventPayload {
    public var canonicalJSON: String {
        var fields: [(String, JSON)] = []
        switch self {
        case .meetingJoin(let engine, let title):
            fields = [("engine", .string(engine))]
            if let title { fields.append(("title", .string(title))) }
        case .meetingLeave, .reconnect:
            break
        case .disconnect(let reason, let error):
            fields = [("reason", .string(reason))]
            if let error { fields.append(("error", .string(error))) }
        case .qualityReport(let r):
            fields = [
                ("loss", .double(r.loss)), ("rtt", .double(r.rtt)), ("jitter", .double(r.jitter)),
                ("bitrate", .double(r.bitrate)), ("mos", .optional(r.mos)),
            ]
        case .connectionQualityChange(let tier):
            fields = [("tier", .string(tier))]
        case .activeSpeakersChange(let speakers):
            fields = [("speakers", .array(speakers.map { .string($0) }))]
        case .streamSubscribe(let publisher, let track, let kind):
            fields = [("publisher", .string(publisher)), ("track", .string(track)), ("kind", .string(kind))]
        case .streamUnsubscribe(let publisher, let track):
            fields = [("publisher", .string(publisher)), ("track", .string(track))]
        case .receiveStreamStatus(let publisher, let track, let timedOut):
            fields = [("publisher", .string(publisher)), ("track", .string(track)), ("timedOut", .bool(timedOut))]
        case .userEnter(let target), .userLeave(let target):
            fields = [("target", .string(target))]
        case .memberMediaState(let target, let media, let on, let byAdmin, let opUid):
            fields = [("target", .string(target)), ("media", .string(media)), ("on", .bool(on)), ("byAdmin", .bool(byAdmin))]
            if let opUid { fields.append(("opUid", .string(opUid))) }
        case .roomTitleChange(let title, let previousTitle):
            fields = [("title", .string(title)), ("previousTitle", .string(previousTitle))]
        case .roomShareStart(let publisher), .roomShareStop(let publisher):
            fields = [("publisher", .string(publisher))]
        }
        return JSON.object(fields).rendered()
    }
}
