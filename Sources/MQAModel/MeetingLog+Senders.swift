/// Reading a received track by who sent it, where a dump names it after
/// the sender's media or makes up its own id (Docs/import.md, "One call,
/// several dumps").
extension MeetingLog {
    /// The log with the track events (`stream_subscribe`,
    /// `stream_unsubscribe`, `receive_stream_status`) read by their sender:
    /// a `publisher` that `publishers` maps is the participant it stands
    /// for, and a client's `track` that `tracks[uid]` maps is the sender's
    /// own id for it. A track whose publisher maps to the receiving client
    /// itself (a loopback test) is left as it is.
    ///
    /// A publisher no participant is known by may have another name in
    /// `streams[uid]`: a `remote-<ssrc>` (a dump whose stats name no
    /// track) reads as the stream its received description's msid names,
    /// and as that stream's participant where one is known by it; a stream
    /// id reads as the participant known by its SSRC's `remote-<ssrc>`,
    /// where one is (an SFU that renamed the sender's stream).
    ///
    /// A browser dump names the peers it receives after their stream ids,
    /// and each received track by an id of its own. With the sender's dump
    /// in the meeting, its tracks are that participant's, so a stall is
    /// weighed against the sender's network; with the sender's track ids,
    /// two viewers of one camera watch one track, so a freeze both saw is
    /// the sender's.
    public func resolvingSenders(
        publishers: [String: String], tracks: [String: [String: String]] = [:], streams: [String: [String: String]] = [:]
    ) -> MeetingLog {
        guard !publishers.isEmpty || !tracks.isEmpty || !streams.isEmpty else { return self }
        var log = self
        // A publisher that is a participant's uid is that participant already.
        let uids = streams.isEmpty ? [] : Set(clients.map(\.uid) + contextOnly.map(\.uid))
        for c in log.clients.indices {
            let uid = log.clients[c].uid
            let ownTracks = tracks[uid] ?? [:]
            let ownStreams = streams[uid] ?? [:]
            guard !publishers.isEmpty || !ownTracks.isEmpty || !ownStreams.isEmpty else { continue }
            for e in log.clients[c].events.indices {
                let payload = log.clients[c].events[e].payload
                guard payload.kind.isTrackEvent else { continue }
                var values = payload.values
                var changed = false
                if let i = payload.kind.descriptor.index(of: "publisher"), case .string(let publisher) = values[i],
                   let sender = MeetingLog.sender(publisher, publishers: publishers, streams: ownStreams, uids: uids) {
                    // A track the client sent itself (a loopback test) stays as the dump named it.
                    if sender == uid { continue }
                    values[i] = .string(sender)
                    changed = true
                }
                if let i = payload.kind.descriptor.index(of: "track"), case .string(let track) = values[i],
                   let sender = ownTracks[track] {
                    values[i] = .string(sender)
                    changed = true
                }
                if changed { log.clients[c].events[e].payload = EventPayload(kind: payload.kind, values: values) }
            }
        }
        // What each connection received is read by its senders the same way.
        for (uid, links) in log.received {
            let ownStreams = streams[uid] ?? [:]
            log.received[uid] = links.map { link in
                var link = link
                let senders = link.peers.map { p in
                    MeetingLog.sender(p, publishers: publishers, streams: ownStreams, uids: uids).flatMap { $0 == uid ? nil : $0 } ?? p
                }
                link.peers = Array(Set(senders)).sorted()
                return link
            }
        }
        return log
    }

    /// Who a received track's `publisher` is: the participant a meeting's
    /// name stands for (`publishers`), else its other name in the
    /// receiver's `streams`, read through `publishers` again; nil to keep
    /// it as it is. A participant's uid (`uids`) is never renamed.
    static func sender(_ publisher: String, publishers: [String: String], streams: [String: String], uids: Set<String>) -> String? {
        publishers[publisher] ?? (uids.contains(publisher) ? nil : streams[publisher].flatMap({
            publishers[$0] ?? (publisher.hasPrefix("remote-") ? $0 : nil)
        }))
    }
}

extension EventKind {
    /// The events of a subscription to a remote track.
    var isTrackEvent: Bool { self == .streamSubscribe || self == .streamUnsubscribe || self == .receiveStreamStatus }
}
