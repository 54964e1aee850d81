import Foundation
@testable import MQASimulator

/// A self-check of generated lines against Docs/event-log.md, built
/// on Foundation's JSONSerialization (independent of the simulator's writer).
/// Returns nil for a valid line, else the reason.
enum LineSelfCheck {
    /// 2000-01-01T00:00:00Z
    static let minTs: Int64 = 946_684_800_000

    static func parse(_ line: Substring) -> [String: Any]? {
        guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) else { return nil }
        return obj as? [String: Any]
    }

    static func isBool(_ v: Any?) -> Bool {
        guard let n = v as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    static func number(_ v: Any?) -> Double? {
        guard let n = v as? NSNumber, !isBool(n) else { return nil }
        let d = n.doubleValue
        return d.isFinite ? d : nil
    }

    nonisolated(unsafe) static let rfc3339: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()

    static func string(_ v: Any?) -> String? { v as? String }

    static let netTypes = ["wifi", "cellular", "ethernet", "other", "none"]

    /// Epoch milliseconds of the `ts` field, nil if invalid.
    static func timestamp(_ v: Any?) -> Int64? {
        if let d = number(v) {
            guard d == d.rounded() else { return nil }
            return Int64(d)
        }
        guard let s = v as? String, let date = rfc3339.date(from: s) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func idString(_ v: Any?) -> Bool {
        guard let s = v as? String else { return false }
        let n = s.unicodeScalars.count
        return n >= 1 && n <= 256
    }

    static func check(_ line: Substring, now: Int64) -> String? {
        if line.utf8.count > 1 << 20 { return "line over 1 MiB" }
        guard let o = parse(line) else { return "not a JSON object" }
        return check(o, now: now)
    }

    /// The envelope and payload rules for a parsed line.
    static func check(_ o: [String: Any], now: Int64) -> String? {
        guard let ts = timestamp(o["ts"]) else { return "bad ts" }
        if ts < minTs || ts > now + 86_400_000 { return "ts out of range" }
        guard let event = o["event"] as? String, idString(event) else { return "bad event" }
        guard idString(o["meeting"]) else { return "bad meeting" }
        guard idString(o["uid"]) else { return "bad uid" }

        func str(_ k: String) -> Bool { o[k] is String }
        func optStr(_ k: String) -> Bool { o[k] == nil || o[k] is String }
        func bool(_ k: String) -> Bool { isBool(o[k]) }
        func uid(_ k: String) -> Bool { idString(o[k]) }

        switch event {
        case "meeting_join":
            guard let e = o["engine"] as? String, ["sfu", "cdn", "p2p"].contains(e) else { return "bad engine" }
            guard optStr("title") else { return "bad title" }
            // Format 1.2: the client fields.
            guard o["platform"] == nil || ["ios", "android", "macos", "windows", "linux", "web"].contains(o["platform"] as? String ?? "")
            else { return "bad platform" }
            guard o["netType"] == nil || netTypes.contains(o["netType"] as? String ?? "") else { return "bad netType" }
            for k in ["osVersion", "sdkVersion", "appVersion", "device"] where o[k] != nil {
                guard idString(o[k]) else { return "bad \(k)" }
            }
        case "meeting_leave", "reconnect":
            break
        case "disconnect":
            guard str("reason"), optStr("error") else { return "bad disconnect" }
        case "quality_report":
            guard let loss = number(o["loss"]), loss >= 0, loss <= 100 else { return "bad loss" }
            guard let rtt = number(o["rtt"]), rtt >= 0 else { return "bad rtt" }
            guard let jitter = number(o["jitter"]), jitter >= 0 else { return "bad jitter" }
            guard let bitrate = number(o["bitrate"]), bitrate >= 0 else { return "bad bitrate" }
            guard let mos = o["mos"] else { return "missing mos" }
            if !(mos is NSNull) {
                guard let m = number(mos), m == 0 || (m >= 1 && m <= 5) else { return "bad mos" }
            }
        case "connection_quality_change":
            guard str("tier") else { return "bad tier" }
        case "active_speakers_change":
            guard let s = o["speakers"] as? [Any], s.allSatisfy({ idString($0) }) else { return "bad speakers" }
        case "stream_subscribe":
            guard uid("publisher"), str("track") else { return "bad subscribe" }
            guard let k = o["kind"] as? String, k == "camera" || k == "screen" else { return "bad kind" }
        case "stream_unsubscribe":
            guard uid("publisher"), str("track") else { return "bad unsubscribe" }
        case "receive_stream_status":
            guard uid("publisher"), str("track"), bool("timedOut") else { return "bad stream status" }
        case "user_enter", "user_leave":
            guard uid("target") else { return "bad target" }
        case "member_media_state":
            guard uid("target"), bool("on"), bool("byAdmin") else { return "bad media state" }
            guard let m = o["media"] as? String, m == "mic" || m == "camera" else { return "bad media" }
            guard o["opUid"] == nil || uid("opUid") else { return "bad opUid" }
        case "room_title_change":
            guard str("title"), str("previousTitle") else { return "bad title change" }
        case "room_share_start", "room_share_stop":
            guard uid("publisher") else { return "bad share" }
        case "audio_route_change":
            guard str("route"), str("reason") else { return "bad route change" }
        case "audio_interruption":
            guard let p = o["phase"] as? String, p == "began" || p == "ended" else { return "bad phase" }
        case "device_change":
            guard let k = o["kind"] as? String, ["camera", "mic", "speaker"].contains(k) else { return "bad device kind" }
            guard let c = o["change"] as? String, ["added", "removed", "default"].contains(c) else { return "bad device change" }
            guard optStr("device") else { return "bad device" }
        case "sub_meeting_move":
            guard idString(o["target"]), optStr("reason") else { return "bad move" }
        case "user_handup":
            guard let s = o["step"] as? String, ["request", "cancel", "confirmOpen", "rejectOpen"].contains(s) else { return "bad step" }
        case "share_broadcast_start", "share_broadcast_stop":
            break
        case "network_change":
            guard netTypes.contains(o["netType"] as? String ?? "") else { return "bad netType" }
            guard o["detail"] == nil || idString(o["detail"]) else { return "bad detail" }
        default:
            break // unknown events are valid (ignored)
        }
        return nil
    }

    /// Non-empty lines of a log.
    static func lines(_ bytes: [UInt8]) -> [Substring] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
    }
}
