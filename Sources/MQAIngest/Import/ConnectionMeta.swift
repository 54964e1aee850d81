/// What a dump says of one peer connection besides its stats: its state
/// log, whether the app closed it, whether it was the direct (P2P) one,
/// and what it was set up for. The participant's events come from here
/// (`ParticipantAssembler`).
struct ConnectionMeta {
    /// State changes in the dump's order. `ts` is nil where the dump's
    /// time could not be read (a webrtc-internals locale string).
    var states: [StateChange] = []
    /// When the app called `close()` (rtcstats `close` line).
    var closedAt: Int64?
    /// Jitsi's `rtcStatsSFUP2P` constraint: true for the direct connection.
    var p2p: Bool?
    var createdAt: Int64?
    /// Its ICE servers were all STUN (`stun:`/`stuns:`): an IP-discovery
    /// probe when it also never carried media.
    var stunOnly = false
    var dataChannel = false
    /// The app set it up for media: tracks added or received, or the
    /// SDK's constraints line (a probe has none of these).
    var mediaSetUp = false
    /// Remote tracks' senders where the page's log names their stream
    /// (`RTCStatsImporter.publisher(stream:)`), by track identifier.
    var publishers: [String: String] = [:]
    /// The names its sent media goes by at the far end, from its local
    /// descriptions (`SentMediaNames`), first seen first.
    var knownAs: [String] = []
    /// `knownAs` as a set: a description may name thousands.
    private var knownAsSet: Set<String> = []
    /// The last remote description set on it as the dump logs it (read
    /// only for the connection that decides the engine).
    var remoteDescriptionText: String?
    var remoteDescription: SessionDescriptionFacts? { remoteDescriptionText.flatMap(SessionDescriptionFacts.init(logged:)) }
    /// The readings of its log's first entry where that is a locale text
    /// (`LocaleLogTime`); empty when it is a time, nil without a log.
    var firstLogWall: [LocaleLogTime.Reading]?

    /// The sender's track id on each SSRC the far end sends video on, from
    /// the remote descriptions set (`SentMediaNames.received`).
    var senderTracks: [String: String] = [:]
    /// The publisher the remote descriptions' msid names on each SSRC the
    /// far end sends video on (`SentMediaNames.received`), for a track its
    /// stats and `ontrack` lines do not name.
    var ssrcPublishers: [String: String] = [:]
    /// SSRCs a later description gave another track or stream than an
    /// earlier one: an SFU that reuses its SSRCs for whoever is on screen
    /// (Jitsi's SSRC rewriting) has one tile show several senders, and
    /// naming the whole tile after the last one would be wrong from its
    /// start. They name nothing.
    private var reusedTrackSSRCs: Set<String> = []
    private var reusedStreamSSRCs: Set<String> = []

    /// Notes the sender's tracks and publishers a logged remote
    /// description names.
    mutating func noteRemoteDescription(_ text: String) {
        let received = SentMediaNames.received(loggedDescription: text)
        ConnectionMeta.merge(received.tracks, into: &senderTracks, reused: &reusedTrackSSRCs)
        ConnectionMeta.merge(received.publishers, into: &ssrcPublishers, reused: &reusedStreamSSRCs)
    }

    private static func merge(_ names: [String: String], into map: inout [String: String], reused: inout Set<String>) {
        for (ssrc, name) in names where !reused.contains(ssrc) {
            if let known = map[ssrc], known != name {
                map[ssrc] = nil
                reused.insert(ssrc)
            } else {
                map[ssrc] = name
            }
        }
    }

    /// Notes the names a logged local description gives the sent media.
    mutating func noteLocalDescription(_ text: String) {
        for name in SentMediaNames.from(loggedDescription: text) where knownAsSet.insert(name).inserted { knownAs.append(name) }
    }

    /// A log entry that sets a local description: the call's own
    /// (`setLocalDescription`) or, where the page logs the description on
    /// success only (an implicit `setLocalDescription()`), that one.
    static func setsLocalDescription(_ method: String) -> Bool {
        method == "setLocalDescription" || method == "setLocalDescriptionOnSuccess"
    }

    struct StateChange: Equatable {
        var ts: Int64?
        var state: String
        /// From `oniceconnectionstatechange`, not `onconnectionstatechange`.
        var ice: Bool
        /// The app's `close()` (a webrtc-internals `close` entry, state
        /// `closed`): part of whichever log is taken, so that it does not
        /// make a dump of ICE states alone look like one with
        /// `connectionState` and lose them.
        var byApp = false
        /// Where `ts` is nil: the page's locale text read as a wall clock,
        /// one reading per date order it allows (`LocaleLogTime`), placed
        /// once the dump's offset from UTC is known.
        var wall: [LocaleLogTime.Reading] = []
    }

    /// The state log taken as the spec says: `connectionState` where the
    /// dump has it, else the ICE state; every state, `new`, `checking`
    /// and `connecting` included (a connection stuck there never
    /// connected).
    var loggedStates: [StateChange] {
        let hasConnectionState = states.contains { !$0.ice && !$0.byApp }
        return states.filter { $0.byApp || $0.ice == !hasConnectionState }
    }

    /// When the connection came back up after a drop (`connected` or
    /// `completed` after `disconnected` or `failed`, in either log), in
    /// the log's order: nothing it carried can have arrived in between.
    static func returns(_ states: [StateChange]) -> [Int64] {
        var down = Down()
        return states.compactMap { down.note($0) }
    }

    /// Whether each log last said the connection was down.
    struct Down {
        var ice = false
        var pc = false

        /// Takes the next state change; its time when it is a return.
        mutating func note(_ s: StateChange) -> Int64? {
            guard !s.byApp else { return nil }
            let isDown = s.state == "disconnected" || s.state == "failed"
            let isUp = s.state == "connected" || s.state == "completed"
            guard isDown || isUp else { return nil }
            let wasDown = s.ice ? ice : pc
            if s.ice { ice = isDown } else { pc = isDown }
            return isUp && wasDown ? s.ts : nil
        }
    }
    /// `Down` over the states logged so far (rtcstats: kept as lines come).
    var down = Down()

    /// The far end hung up at `closed` (its DTLS close alert): the
    /// connection's drops and failure after that are ICE timing out on a
    /// peer that left, not this person's trouble. They are taken out, so
    /// the connection ends as one whose samples end with it up (a leave).
    /// Read as logged, a peer's hang-up made the person who stayed
    /// "suffered most: 1 abnormal disconnect".
    mutating func dropStatesAfterFarEndClosed(_ closed: Int64?) {
        guard let closed else { return }
        states.removeAll { !$0.byApp && ($0.state == "disconnected" || $0.state == "failed") && ($0.ts.map { $0 >= closed } ?? false) }
    }

    /// `loggedStates` that tell an outcome: up, down, failed or closed.
    var effectiveStates: [StateChange] {
        loggedStates.filter { ["connected", "completed", "disconnected", "failed", "closed"].contains($0.state) }
    }

    /// Reads `"optional":[…{"rtcStatsSFUP2P":true}…]` out of a constraints
    /// text (webrtc-internals keeps the constraints as a string).
    static func p2pFlag(inConstraintsText text: String) -> Bool? {
        guard let range = text.range(of: "rtcStatsSFUP2P") else { return nil }
        let rest = text[range.upperBound...].drop { $0 == "\"" || $0 == ":" || $0 == " " }
        if rest.hasPrefix("true") { return true }
        if rest.hasPrefix("false") { return false }
        return nil
    }
}
