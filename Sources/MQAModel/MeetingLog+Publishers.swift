/// Reading a track's publisher as the participant who sent it, where the
/// publisher is named after the sender's media rather than the sender.
extension MeetingLog {
    /// The log with every track event's `publisher` that `names` maps
    /// replaced by the participant it stands for (`stream_subscribe`,
    /// `stream_unsubscribe`, `receive_stream_status`). A browser dump names
    /// the peers it receives after their stream ids; where the sender's own
    /// dump is in the same meeting, its tracks are that participant's, so
    /// that a stall is weighed against the sender's network and tiers.
    /// A name that maps to the receiving client itself is left alone.
    public func resolvingPublishers(_ names: [String: String]) -> MeetingLog {
        guard !names.isEmpty else { return self }
        var log = self
        for c in log.clients.indices {
            let uid = log.clients[c].uid
            for e in log.clients[c].events.indices {
                let payload = log.clients[c].events[e].payload
                guard payload.kind.isTrackEvent, let i = payload.kind.descriptor.index(of: "publisher"),
                      case .string(let publisher) = payload.values[i], let sender = names[publisher], sender != uid else { continue }
                var values = payload.values
                values[i] = .string(sender)
                log.clients[c].events[e].payload = EventPayload(kind: payload.kind, values: values)
            }
        }
        return log
    }
}

extension EventKind {
    /// The events of a subscription to a remote track.
    var isTrackEvent: Bool { self == .streamSubscribe || self == .streamUnsubscribe || self == .receiveStreamStatus }
}
