import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// Incidents and participant impact in words, shared by the Markdown and
/// HTML forms so both say the same thing.
enum IncidentText {
    /// `14:31:05–14:31:43 (+12:03, 38 s)`: the window on the wall clock
    /// (UTC, or the `--tz` zone with UTC beside it: `15:31:05–15:31:43
    /// (14:31:05–14:31:43 UTC, +12:03, 38 s)`), with its offset from the meeting's start
    /// and its length, so neither has to be worked out by hand.
    /// Where the zone's offset from UTC is not the one of the meeting's
    /// start (the page names that one), the incident's own follows its
    /// clock: after a fall-back, 01:30 happens twice (`01:30:01 -05:00`).
    static func window(_ i: Incident, from t0: Int64, _ display: TimeDisplay) -> String {
        let offset = ReportText.offset(i.startTs, from: t0, milliseconds: false)
        // The end's offset after the window; the start's too when the window
        // spans the change itself.
        let endNote = display.offsetNote(at: i.endTs, from: t0)
        let a = display.clock(i.startTs) + display.offsetNote(at: i.startTs, from: i.endTs)
        let utc = display.utcNote(i.startTs, to: i.durationMs == 0 ? nil : i.endTs)
        return i.durationMs == 0 ? "\(a)\(endNote) (\(utc)\(offset))"
            : "\(a)–\(display.clock(i.endTs))\(endNote) (\(utc)\(offset), \(ReportText.duration(i.durationMs)))"
    }

    /// Who: `u-8f02`, or `bob-cam (bob)` for a publisher-side track
    /// incident. A track id that does not name its sender (a browser's
    /// UUID) is told by the sender, the id cut to its first 8 characters
    /// to find it in the JSON: `bob's video (86e1f891…)`.
    static func subject(_ i: Incident) -> String {
        guard let track = i.track else { return i.uid }
        if names(track, i.uid) { return "\(track) (\(i.uid))" }
        return "\(i.uid)'s video (\(shortID(track)))"
    }

    /// A long made-up id cut to its first 8 characters: enough to find it.
    static func shortID(_ id: String) -> String { id.count > 9 ? String(id.prefix(8)) + "…" : id }

    /// `shortID` of a UUID (a browser's name for a stream or track), and
    /// of one with a number after it (`34dad0fe…-1`); any other id whole:
    /// a person's uid is read, not looked up.
    static func compactID(_ id: String) -> String {
        let groups = id.split(separator: "-", omittingEmptySubsequences: false)
        let isUUID = { (g: ArraySlice<Substring>) in
            g.map(\.count) == [8, 4, 4, 4, 12] && g.allSatisfy { $0.allSatisfy(\.isHexDigit) }
        }
        if isUUID(groups[...]) { return shortID(id) }
        // A stream id a browser numbers after the UUID (Firefox, Jitsi:
        // `34dad0fe-…-a3b614716a3d-1`): cut the UUID, keep the number.
        if groups.count == 6, isUUID(groups.prefix(5)), let n = groups.last, !n.isEmpty, n.allSatisfy(\.isNumber) {
            return String(id.prefix(8)) + "…-" + n
        }
        return id
    }

    /// `stall ×4, poor/bad tier, loss spike`.
    static func kinds(_ i: Incident) -> String {
        i.kinds.map { k in k == .stall && i.evidence.stallCount > 1 ? "stall ×\(i.evidence.stallCount)" : k.words }
            .joined(separator: ", ")
    }

    /// The evidence behind the cause, in one sentence without a full stop.
    /// Without quality data (CDN) an unknown cause says it cannot tell.
    /// `publisherUnseen`: a stalled track's sender is no participant of
    /// the logs (a browser dump holds one person), so nothing was seen of
    /// that side.
    ///
    /// `owners` gives the sender of each of the participant's stalled
    /// tracks: a track whose id does not start with its sender's name (a
    /// browser's UUID) is told as `<sender>'s video`, since "12 stalls of
    /// 02f61e48-…, 309111e4-…" says nothing of whose video froze.
    static func evidence(_ i: Incident, qualityData: Bool = true, publisherUnseen: Bool = false,
                         owners: [String: String] = [:]) -> String {
        let e = i.evidence
        var parts: [String] = []
        switch i.cause {
        case .disconnect:
            var s = "disconnected" + (e.disconnects > 1 ? " \(e.disconnects) times" : "") + (e.disconnectError.map { " (\($0))" } ?? "")
            if e.awayEach.count > 1 {
                // Each drop told: "back after 10 s" of the first alone hid
                // a second drop 3 s later.
                s += e.awayEach.enumerated().map { k, away in
                    away.map { (k == 0 ? ", back after " : ", then after ") + ReportText.duration($0) }
                        ?? (k == 0 ? ", did not come back" : ", then did not come back")
                }.joined()
            } else {
                s += e.awayMs.map { ", back after \(ReportText.duration($0))" } ?? ", did not come back"
            }
            parts.append(s)
        case .publisher:
            if i.track != nil { parts.append("\(list(e.subscribers, limit: 4)) stalled together") }
            if !e.publisherKinds.isEmpty {
                parts.append("publisher \(e.publishers.joined(separator: ", ")): " + e.publisherKinds.map(\.words).joined(separator: ", ")
                             + " at the same time")
            }
            if let n = e.otherTracksPlaying {
                parts.append("only \(list(e.publishers, limit: 2))'s tile froze: \(n == 1 ? "1 other track" : "\(n) other tracks") kept playing")
            }
            if let n = e.cleanConnections, let sender = e.publishers.first, let peak = e.alsoSlowMaxRttMs {
                parts.append("only its connection with \(sender) had RTT over \(ReportText.number(ReceivedLoss.slowRttMs, places: 0)) ms "
                             + "(\(n == 1 ? "1 other connection" : "\(n) other connections") clean); "
                             + "\(sender)'s \(e.alsoSlow.count == 1 ? "connection" : "connections") with \(list(e.alsoSlow, limit: 3)) too "
                             + "(up to \(ReportText.number(peak, places: 0)) ms)")
            } else if let n = e.cleanConnections, let sender = e.publishers.first {
                var s = "only its connection from \(sender) lost packets (\(n == 1 ? "1 other connection" : "\(n) other connections") clean)"
                if let peak = e.alsoLossyMaxPct {
                    s += "; \(list(e.alsoLossy, limit: 3)) lost \(sender)'s packets too (up to \(ReportText.number(peak, places: 1))%)"
                }
                parts.append(s)
            }
            if e.publisherMaxLossPct != nil || e.publisherMaxRttMs != nil {
                var f: [String] = []
                // The publisher's reports are of what it received: a
                // capped uplink leaves them clean ("own loss 0%" read as
                // a clean sender).
                if let l = e.publisherMaxLossPct { f.append("received loss up to \(ReportText.number(l, places: 1))%") }
                if let r = e.publisherMaxRttMs { f.append("RTT up to \(ReportText.number(r, places: 0)) ms") }
                parts.append("publisher's own reports: " + f.joined(separator: ", "))
            }
        case .ownDevice:
            if let g = e.strainedGapMs {
                parts.append("its own reports came up to \(ReportText.duration(g)) apart: the device fell behind (CPU, or the app hung), and the RTT it measured with it")
            }
            if let n = e.burstTracks {
                parts.append("\(n) tracks stalled at once with a clean network (decoder or CPU)")
            } else if let n = e.othersPlaying {
                parts.append("\(viewers(n)) of the same track kept playing and the network was clean (decoder or CPU)")
            }
        case .ownNetwork:
            if let n = e.othersPlaying {
                parts.append("\(viewers(n)) of the same track kept playing (the link to the CDN; no quality data to tell more)")
            }
        default:
            break
        }
        func viewers(_ n: Int) -> String { n == 1 ? "1 other viewer" : "\(n) other viewers" }
        func baseline(_ v: Double?, _ unit: String, _ places: Int) -> String {
            v.map { " (own baseline \(ReportText.number($0, places: places))\(unit))" } ?? ""
        }
        if let loss = e.maxLossPct { parts.append("loss up to \(ReportText.number(loss, places: 1))%" + baseline(e.baselineLossPct, "%", 1)) }
        if let rtt = e.maxRttMs { parts.append("RTT up to \(ReportText.number(rtt, places: 0)) ms" + baseline(e.baselineRttMs, " ms", 0)) }
        if let j = e.maxJitterMs { parts.append("jitter up to \(ReportText.number(j, places: 0)) ms" + baseline(e.baselineJitterMs, " ms", 0)) }
        if let late = e.lateLossPct {
            parts.append("\(list(e.lateLossViewers, limit: 3)) counted the gap as loss when the stream came back"
                         + " (up to \(ReportText.number(late, places: 1))%)")
        }
        if let change = e.networkChange { parts.append("after \(change)") }
        if let t = e.lowestTier { parts.append("tier down to \(t.name) for \(ReportText.duration(e.lowTierMs))") }
        if e.stallCount > 0 {
            let what = e.stallCount == 1 ? "1 stall" : "\(e.stallCount) stalls"
            var seen: Set<String> = []
            let stalled = e.tracks.map { t in owners[t].map { IncidentText.names(t, $0) ? t : "\($0)'s video" } ?? t }
                .filter { seen.insert($0).inserted }
            parts.append("\(what) (\(ReportText.duration(e.stalledMs)))" + (i.track == nil ? " of " + list(stalled, limit: 3) : ""))
        }
        if i.cause == .unknown {
            parts.append(!qualityData ? "no quality data to tell why (CDN engine)"
                : publisherUnseen ? "no loss, RTT or tier trouble on this side; the sender's side is not in these logs"
                : "no loss, RTT or tier trouble on either side")
        }
        return parts.joined(separator: "; ")
    }

    /// `3 h 54 m of video watched over 5 tiles`: the one label of a
    /// watched time, which is summed over the subscriptions of those tiles
    /// (distinct tracks: one subscribed again after a drop is one tile).
    static func watched(_ ms: Int64, tiles: Int) -> String {
        "\(ReportText.duration(ms)) of video watched over \(tiles) tile\(tiles == 1 ? "" : "s")"
    }

    /// Whether track id `track` begins with its sender's name `owner` as a
    /// word (`bob-cam` names bob; `a3f0…` does not name `a`).
    static func names(_ track: String, _ owner: String) -> Bool {
        guard track.hasPrefix(owner) else { return false }
        guard let next = track.dropFirst(owner.count).first else { return true }
        return !(next.isLetter || next.isNumber)
    }

    /// `a, b, c and 2 more`.
    static func list(_ items: [String], limit: Int) -> String {
        list(Array(items.prefix(limit)), of: items.count)
    }

    /// `list` of `count` items of which `first` are the first ones.
    static func list(_ first: [String], of count: Int) -> String {
        first.joined(separator: ", ") + (count > first.count ? " and \(count - first.count) more" : "")
    }

    /// One participant's impact: `stalled 6 m 40 s (2.8% of 3 h 54 m of
    /// video watched over 5 tiles), poor/bad 9 m 26 s, 1 abnormal disconnect`.
    /// The watched time is summed over the tiles (subscriptions) they
    /// watched, so it can exceed the meeting's length: the label says so.
    static func impact(_ p: ParticipantImpact) -> String {
        var parts: [String] = []
        if p.stalledMs > 0 {
            parts.append("stalled \(ReportText.duration(p.stalledMs))" + (p.stalledShare.map {
                " (\(ReportText.percent($0)) of \(watched(p.watchedMs, tiles: p.tiles)))"
            } ?? ""))
        }
        if let low = p.lowTierMs, low > 0 { parts.append("poor/bad \(ReportText.duration(low))") }
        if p.abnormalDisconnects > 0 {
            parts.append(p.abnormalDisconnects == 1 ? "1 abnormal disconnect" : "\(p.abnormalDisconnects) abnormal disconnects")
        }
        // Without a quality feed (a CDN meeting) poor/bad is not known: it
        // shows as "no data", never left out as if it were 0.
        if !parts.isEmpty && p.lowTierMs == nil { parts.append("poor/bad no data") }
        if parts.isEmpty {
            return p.lowTierMs == nil ? "no stalls, no abnormal disconnect (no quality data)" : "no stalls, no poor/bad time, no abnormal disconnect"
        }
        return parts.joined(separator: ", ")
    }

    /// `30 own network, 7 disconnect, 2 publisher side`: causes by count.
    static func causes(_ incidents: [Incident]) -> String {
        var counts: [IncidentCause: Int] = [:]
        for i in incidents { counts[i.cause, default: 0] += 1 }
        return IncidentCause.allCases.filter { counts[$0] != nil }
            .sorted { (counts[$1]!, IncidentCause.allCases.firstIndex(of: $0)!) < (counts[$0]!, IncidentCause.allCases.firstIndex(of: $1)!) }
            .map { "\(counts[$0]!) \($0.words)" }.joined(separator: ", ")
    }
}
