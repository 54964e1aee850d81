import MQABase
import MQAModel

/// What the 1.1 context events and the speaker snapshots say about a
/// meeting: per participant, who spoke how long, media changes, audio
/// routes, interruptions, devices, raised hands, and (format 1.2) the
/// client it ran on and its network changes; for the meeting, moves to
/// sub-meetings and shares. Context only: nothing here feeds a figure of
/// the tier engine (`Docs/tiers.md`).
public struct MeetingContext: Sendable, Equatable {
    /// One per participant (`MeetingLog.clients`), in uid order.
    public var participants: [ParticipantContext]
    /// By time, then uid.
    public var subMeetingMoves: [SubMeetingMove]
    /// Room shares (as heard by anyone) and iOS broadcast shares (logged by
    /// the sharer), by start time.
    public var shares: [Share]

    public struct SubMeetingMove: Sendable, Equatable {
        public var ts: Int64
        public var uid: String
        public var target: String
        public var reason: String?
    }

    public struct Share: Sendable, Equatable {
        public enum Kind: String, Sendable { case room, broadcast }
        public var publisher: String
        public var kind: Kind
        public var startTs: Int64
        /// `nil` when no stop was logged.
        public var endTs: Int64?
    }

    /// Where each uid is in `participants`: a meeting may have 100,000.
    private var indexByUID: [String: Int]

    public init(participants: [ParticipantContext], subMeetingMoves: [SubMeetingMove], shares: [Share]) {
        self.participants = participants
        self.subMeetingMoves = subMeetingMoves
        self.shares = shares
        indexByUID = Dictionary(participants.enumerated().map { ($0.element.uid, $0.offset) }, uniquingKeysWith: { a, _ in a })
    }

    /// The context of participant `uid`, if it is one.
    public func participant(_ uid: String) -> ParticipantContext? {
        indexByUID[uid].map { participants[$0] }
    }

    /// Builds the context of a meeting log.
    public static func build(_ log: MeetingLog) -> MeetingContext {
        build(log, lastReports: log.clients.map { $0.reports.ts.last }, talk: talkTime(log))
    }

    /// `build(_:)` of a log read without its reports, what they decide
    /// found as each client was read with them: `lastReports[i]`, the time
    /// of client `i`'s last report (the client fields read up to it), and
    /// `talk`, each speaker's longest talk time heard (`talkTime(heardBy:)`,
    /// `hearing`).
    public static func build(_ log: MeetingLog, lastReports: [Int64?], talk: [String: Int64]) -> MeetingContext {
        let media = mediaChanges(log)
        var participants: [ParticipantContext] = []
        for (client, lastReport) in zip(log.clients, lastReports) {
            var p = ParticipantContext(uid: client.uid)
            p.talkMs = talk[client.uid] ?? 0
            p.mediaChanges = media[client.uid] ?? []
            p.client = ParticipantContext.ClientInfo(client, lastReport: lastReport)
            var openInterruption: Int?
            for e in client.context {
                let x = e.payload
                switch x.kind {
                case .audioRouteChange:
                    p.audioRoutes.append(.init(ts: e.ts, route: x.string("route") ?? "", reason: x.string("reason") ?? ""))
                case .audioInterruption:
                    // A second `began` while one is open continues it; an
                    // `ended` with none open has nothing to end.
                    if x.string("phase") == "began" {
                        if openInterruption == nil {
                            openInterruption = p.interruptions.count
                            p.interruptions.append(.init(startTs: e.ts, endTs: nil))
                        }
                    } else if let i = openInterruption {
                        p.interruptions[i].endTs = e.ts
                        openInterruption = nil
                    }
                case .deviceChange:
                    p.devices.append(.init(ts: e.ts, kind: x.string("kind") ?? "", change: x.string("change") ?? "",
                                           device: x.string("device")))
                case .userHandup:
                    if x.string("step") == "request" { p.handups += 1 }
                case .networkChange:
                    p.networkChanges.append(.init(ts: e.ts, netType: x.string("netType") ?? "", detail: x.string("detail")))
                default: break
                }
            }
            p.networkPath = networkPath(client)
            p.clientHistory = clientHistory(client)
            participants.append(p)
        }
        var moves: [SubMeetingMove] = []
        var shareEvents: [(ts: Int64, publisher: String, kind: Share.Kind, start: Bool)] = []
        for client in log.clients + log.contextOnly {
            for e in client.context {
                switch e.payload.kind {
                case .subMeetingMove:
                    moves.append(.init(ts: e.ts, uid: client.uid, target: e.payload.string("target") ?? "",
                                       reason: e.payload.string("reason")))
                case .shareBroadcastStart: shareEvents.append((e.ts, client.uid, .broadcast, true))
                case .shareBroadcastStop: shareEvents.append((e.ts, client.uid, .broadcast, false))
                default: break
                }
            }
            for e in client.events {
                guard let publisher = e.payload.string("publisher") else { continue }
                if e.payload.kind == .roomShareStart { shareEvents.append((e.ts, publisher, .room, true)) }
                if e.payload.kind == .roomShareStop { shareEvents.append((e.ts, publisher, .room, false)) }
            }
        }
        moves.sort { ($0.ts, $0.uid) < ($1.ts, $1.uid) }
        return MeetingContext(participants: participants, subMeetingMoves: moves, shares: shares(shareEvents))
    }

    /// The networks a client was on, in time order: each join's `netType`
    /// and each `network_change`, a repeat of the one before left out.
    static func networkPath(_ client: ClientLog) -> [String] {
        var path: [String] = []
        for m in ClientFieldTimeline.marks(client, field: .netType) {
            if let v = m.value, path.last != v { path.append(v) }
        }
        return path
    }

    /// The clients a participant joined as, when a rejoin named another
    /// platform, OS, SDK, app or device (a phone, then a laptop): one entry
    /// per such join, each with the networks of its stretch. Empty when
    /// every join named the same (`ClientInfo` then says it all).
    static func clientHistory(_ client: ClientLog) -> [ParticipantContext.TimedClient] {
        let joins = client.events.filter { $0.payload.kind == .meetingJoin }
        var entries: [ParticipantContext.TimedClient] = []
        var current = ParticipantContext.ClientInfo()
        func device(_ c: ParticipantContext.ClientInfo) -> ParticipantContext.ClientInfo {
            var d = c
            d.netType = nil
            return d
        }
        var k = 0
        while k < joins.count {
            // Joins of one millisecond are one moment: the last word holds,
            // as in the cohorts' `ClientFieldTimeline`.
            let ts = joins[k].ts
            while k < joins.count, joins[k].ts == ts {
                current.update(from: joins[k].payload)
                k += 1
            }
            if entries.last.map({ device($0.client) }) != device(current) {
                entries.append(.init(ts: ts, client: current, networks: []))
            }
        }
        guard entries.count > 1 else { return [] }
        // Each stretch's networks: the one holding at its join, then the
        // changes up to the next stretch.
        let timeline = ClientFieldTimeline(client, field: .netType)
        for i in entries.indices {
            let from = entries[i].ts, to = i + 1 < entries.count ? entries[i + 1].ts : .max
            var path: [String] = []
            timeline.overlaps(from: from, to: to) { k, _ in
                if let v = timeline.values[k], path.last != v { path.append(v) }
            }
            entries[i].networks = path
        }
        return entries
    }

    /// Talk time per speaker: a client's snapshot holds until that client's
    /// next snapshot or the end of the connection it was logged in (zero
    /// outside any connection); each client gives a total per speaker and
    /// the largest total over the clients counts.
    static func talkTime(_ log: MeetingLog) -> [String: Int64] {
        var best: [String: Int64] = [:]
        for client in log.clients { hearing(talkTime(heardBy: client), into: &best) }
        return best
    }

    /// Each speaker's talk time in `client`'s snapshots, inside its
    /// connections, which its reports can lengthen (a log cut off while
    /// connected ends at its last report): `client` with its reports.
    public static func talkTime(heardBy client: ClientLog) -> [String: Int64] {
        talkTime(heardBy: client, spans: client.connectionSpans())
    }

    /// `talkTime(heardBy:)` of `client` whose connections are `spans`
    /// (`ConnectedReports.spans`: its reports need not be held).
    public static func talkTime(heardBy client: ClientLog, spans: [ConnectionSpan]) -> [String: Int64] {
        let snapshots = client.events.filter { $0.payload.kind == .activeSpeakersChange }
        var total: [String: Int64] = [:]
        for (i, s) in snapshots.enumerated() {
            guard let span = spans.first(where: { $0.start <= s.ts && s.ts < $0.end }) else { continue }
            let until = min(i + 1 < snapshots.count ? snapshots[i + 1].ts : span.end, span.end)
            guard until > s.ts else { continue }
            // A uid listed twice in one snapshot still speaks once.
            for speaker in Set(s.payload.strings("speakers") ?? []) { total[speaker, default: 0] += until - s.ts }
        }
        return total
    }

    /// Keeps, per speaker, the longest talk time any client heard.
    public static func hearing(_ heard: [String: Int64], into best: inout [String: Int64]) {
        for (speaker, ms) in heard where ms > best[speaker, default: 0] { best[speaker] = ms }
    }

    /// `member_media_state` per target uid, whoever logged it, by time. Every
    /// client in the room hears the same change, so a record that repeats
    /// the state already listed for that medium (same on, byAdmin, opUid)
    /// is that change heard again and left out. One pass over all clients:
    /// a pass per participant was quadratic (minutes for 20,000 clients).
    static func mediaChanges(_ log: MeetingLog) -> [String: [ParticipantContext.MediaChange]] {
        var byTarget: [String: [ParticipantContext.MediaChange]] = [:]
        for client in log.clients {
            for e in client.events where e.payload.kind == .memberMediaState {
                guard let target = e.payload.string("target") else { continue }
                byTarget[target, default: []].append(.init(
                    ts: e.ts, media: e.payload.string("media") ?? "", on: e.payload.bool("on") ?? false,
                    byAdmin: e.payload.bool("byAdmin") ?? false, opUid: e.payload.string("opUid")))
            }
        }
        return byTarget.mapValues { changes in
            // Stable: records of one instant keep the clients' uid order.
            let all = changes.enumerated().sorted {
                ($0.element.ts, $0.element.media, $0.element.on ? 1 : 0, $0.offset)
                    < ($1.element.ts, $1.element.media, $1.element.on ? 1 : 0, $1.offset)
            }.map(\.element)
            var out: [ParticipantContext.MediaChange] = []
            var last: [String: ParticipantContext.MediaChange] = [:]
            for c in all {
                if let l = last[c.media], l.on == c.on, l.byAdmin == c.byAdmin, l.opUid == c.opUid { continue }
                out.append(c)
                last[c.media] = c
            }
            return out
        }
    }

    /// Start/stop records to intervals per (publisher, kind): a start opens
    /// one unless it is open, a stop closes the open one; copies heard by
    /// other clients fall on an open (or closed) share and change nothing.
    static func shares(_ events: [(ts: Int64, publisher: String, kind: Share.Kind, start: Bool)]) -> [Share] {
        let sorted = events.enumerated().sorted {
            ($0.element.ts, $0.element.start ? 1 : 0, $0.offset) < ($1.element.ts, $1.element.start ? 1 : 0, $1.offset)
        }.map(\.element)
        var out: [Share] = []
        var open: [String: Int] = [:]
        for e in sorted {
            let key = e.kind.rawValue + "\u{0}" + e.publisher
            if e.start {
                if open[key] == nil {
                    open[key] = out.count
                    out.append(Share(publisher: e.publisher, kind: e.kind, startTs: e.ts, endTs: nil))
                }
            } else if let i = open[key] {
                out[i].endTs = e.ts
                open[key] = nil
            }
        }
        return out.sorted { ($0.startTs, $0.publisher, $0.kind.rawValue) < ($1.startTs, $1.publisher, $1.kind.rawValue) }
    }
}

/// One participant's context.
public struct ParticipantContext: Sendable, Equatable {
    public var uid: String
    /// Time listed in speaker snapshots (see `MeetingContext.talkTime`).
    public var talkMs: Int64 = 0
    public var mediaChanges: [MediaChange] = []
    public var audioRoutes: [AudioRoute] = []
    public var interruptions: [Interruption] = []
    /// Includes the changes logged before the participant joined.
    public var devices: [DeviceChange] = []
    /// Hands raised (`request` steps).
    public var handups = 0
    /// The client it ran on (format 1.2 fields of `meeting_join`).
    public var client = ClientInfo()
    /// `network_change` events, by time.
    public var networkChanges: [NetworkChange] = []
    /// Networks in time order, from the joins' `netType` and the changes
    /// (`["wifi", "cellular"]`); empty when none was logged.
    public var networkPath: [String] = []
    /// The clients it joined as, when a rejoin named another platform, OS,
    /// SDK, app or device; empty otherwise (`MeetingContext.clientHistory`).
    public var clientHistory: [TimedClient] = []

    /// A client joined as from `ts` on: the fields as they stood after
    /// that join, and the networks used until the next such join.
    public struct TimedClient: Sendable, Equatable {
        public var ts: Int64
        public var client: ClientInfo
        public var networks: [String]

        public var json: JSON {
            guard case .object(let fields) = client.json else { return client.json }
            return .object([("ts", .int(ts))] + fields + [("networks", .array(networks.map { .string($0) }))])
        }
    }

    public init(uid: String) { self.uid = uid }

    /// The format 1.2 fields of a client's `meeting_join`: each the last
    /// value logged, `nil` when never logged.
    public struct ClientInfo: Sendable, Equatable {
        public var platform: String?
        public var osVersion: String?
        public var sdkVersion: String?
        public var appVersion: String?
        public var device: String?
        /// The network at the last join that named one.
        public var netType: String?

        public init() {}

        /// The fields that held for a client's figures (format 1.2): the
        /// last value of each over its joins up to its last report. "The
        /// last value before a report holds": a rejoin after the last
        /// report changes nothing the figures saw, so joins after it count
        /// only when no join came before it (a join at the report's very
        /// ms comes before it).
        public init(joins: [(ts: Int64, payload: EventPayload)], lastReport: Int64?) {
            let cut = lastReport ?? .max
            let before = joins.contains { $0.ts <= cut }
            for j in joins where !before || j.ts <= cut { update(from: j.payload) }
        }

        /// `init(joins:lastReport:)` of a client's log.
        public init(_ client: ClientLog) { self.init(client, lastReport: client.reports.ts.last) }

        /// `init(joins:lastReport:)` of a client's log read without its
        /// reports, whose last report time is known apart.
        public init(_ client: ClientLog, lastReport: Int64?) {
            self.init(joins: client.events.filter { $0.payload.kind == .meetingJoin }.map { ($0.ts, $0.payload) },
                      lastReport: lastReport)
        }

        public var isEmpty: Bool { self == ClientInfo() }

        /// A join's fields over the ones before. A join naming another
        /// platform is another client (a laptop after a phone): the fields
        /// it leaves out are unknown, not the earlier client's (a browser
        /// that names no OS does not run iOS 17.4.1). The network is not
        /// the client's and carries over.
        mutating func update(from join: EventPayload) {
            if let p = join.string("platform"), let current = platform, p != current {
                (osVersion, sdkVersion, appVersion, device) = (nil, nil, nil, nil)
            }
            if let v = join.string("platform") { platform = v }
            if let v = join.string("osVersion") { osVersion = v }
            if let v = join.string("sdkVersion") { sdkVersion = v }
            if let v = join.string("appVersion") { appVersion = v }
            if let v = join.string("device") { device = v }
            if let v = join.string("netType") { netType = v }
        }

        /// The value of a client field (`nil` for `engine`, not a client's).
        public subscript(field: CohortField) -> String? {
            get {
                switch field {
                case .platform: platform
                case .osVersion: osVersion
                case .sdkVersion: sdkVersion
                case .appVersion: appVersion
                case .device: device
                case .netType: netType
                case .engine: nil
                }
            }
            set {
                switch field {
                case .platform: platform = newValue
                case .osVersion: osVersion = newValue
                case .sdkVersion: sdkVersion = newValue
                case .appVersion: appVersion = newValue
                case .device: device = newValue
                case .netType: netType = newValue
                case .engine: break
                }
            }
        }

        /// `"platform"`, `"osVersion"`, … as in the log (camelCase).
        public var json: JSON {
            .object([("platform", .optional(platform)), ("osVersion", .optional(osVersion)),
                     ("sdkVersion", .optional(sdkVersion)), ("appVersion", .optional(appVersion)),
                     ("device", .optional(device)), ("netType", .optional(netType))])
        }
    }

    public struct NetworkChange: Sendable, Equatable {
        public var ts: Int64
        public var netType: String
        public var detail: String?
    }

    public struct MediaChange: Sendable, Equatable {
        public var ts: Int64
        public var media: String
        public var on: Bool
        public var byAdmin: Bool
        public var opUid: String?
    }

    public struct AudioRoute: Sendable, Equatable {
        public var ts: Int64
        public var route: String
        public var reason: String
    }

    public struct Interruption: Sendable, Equatable {
        public var startTs: Int64
        /// `nil` when audio never recovered in the log.
        public var endTs: Int64?
    }

    public struct DeviceChange: Sendable, Equatable {
        public var ts: Int64
        public var kind: String
        public var change: String
        public var device: String?
    }

    /// One context item, for listing them together in time order.
    public enum Item: Sendable, Equatable {
        case media(MediaChange)
        case route(AudioRoute)
        case interruption(Interruption)
        case device(DeviceChange)
        case network(NetworkChange)

        public var ts: Int64 {
            switch self {
            case .media(let x): x.ts
            case .route(let x): x.ts
            case .interruption(let x): x.startTs
            case .device(let x): x.ts
            case .network(let x): x.ts
            }
        }
    }

    /// Every item by time (stable: media, routes, interruptions, devices, networks).
    public var items: [Item] {
        let all: [Item] = mediaChanges.map(Item.media) + audioRoutes.map(Item.route)
            + interruptions.map(Item.interruption) + devices.map(Item.device) + networkChanges.map(Item.network)
        return all.enumerated().sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
    }

    /// The items that may explain trouble over `[from, to]`: those at most
    /// `leadMs` before it or inside it, and interruptions overlapping that
    /// window.
    public func items(near from: Int64, _ to: Int64, leadMs: Int64 = 10_000) -> [Item] {
        items.filter { item in
            if case .interruption(let x) = item {
                return x.startTs <= to && (x.endTs ?? Int64.max) >= from - leadMs
            }
            return item.ts >= from - leadMs && item.ts <= to
        }
    }

    /// Nothing but talk time and hands to show.
    public var hasItems: Bool {
        !(mediaChanges.isEmpty && audioRoutes.isEmpty && interruptions.isEmpty && devices.isEmpty && networkChanges.isEmpty)
    }
}

// MARK: - JSON (`mqa report meeting --format json`)

extension ParticipantContext {
    /// The `context` object of a participant.
    public var json: JSON {
        .object([
            ("talkMs", .int(talkMs)),
            ("mediaChanges", .array(mediaChanges.map { c in
                .object([("ts", .int(c.ts)), ("media", .string(c.media)), ("on", .bool(c.on)),
                         ("byAdmin", .bool(c.byAdmin)), ("opUid", .optional(c.opUid))])
            })),
            ("audioRoutes", .array(audioRoutes.map { .object([("ts", .int($0.ts)), ("route", .string($0.route)), ("reason", .string($0.reason))]) })),
            ("interruptions", .array(interruptions.map { .object([("startTs", .int($0.startTs)), ("endTs", .optional($0.endTs))]) })),
            ("devices", .array(devices.map { d in
                .object([("ts", .int(d.ts)), ("kind", .string(d.kind)), ("change", .string(d.change)), ("device", .optional(d.device))])
            })),
            ("handups", .int(Int64(handups))),
            ("networkChanges", .array(networkChanges.map { n in
                .object([("ts", .int(n.ts)), ("netType", .string(n.netType)), ("detail", .optional(n.detail))])
            })),
        ])
    }
}

extension MeetingContext {
    /// The meeting-level `subMeetingMoves` array.
    public var subMeetingMovesJSON: JSON {
        .array(subMeetingMoves.map { .object([("ts", .int($0.ts)), ("uid", .string($0.uid)), ("target", .string($0.target))]) })
    }

    /// The meeting-level `shares` array.
    public var sharesJSON: JSON {
        .array(shares.map {
            .object([("publisher", .string($0.publisher)), ("kind", .string($0.kind.rawValue)),
                     ("startTs", .int($0.startTs)), ("endTs", .optional($0.endTs))])
        })
    }
}
