import MQAModel

/// Whose network lost a viewer's packets, or whose side held its round
/// trips, on a mesh call (Docs/incidents.md, "Mesh calls: whose loss").
///
/// A participant's quality feed follows one of its connections at a time,
/// the one carrying the most media. A viewer whose feed followed its
/// connection to a sender with a lossy uplink reports that loss as its own,
/// and read alone it is the viewer's network. The viewer's other
/// connections say otherwise when they received cleanly at the same time:
/// the viewer's downlink carried them too. The sender's uplink carries what
/// every other viewer receives from it, so their connections from it lose
/// packets as well: at least one must be seen doing so, and none receiving
/// it cleanly (that points at the path to this viewer). Without the other
/// viewers' dumps the rule says nothing: a viewer's own uplink trouble can
/// make its connection from one peer lossy too (a recorded call read the
/// two viewers in it as each other's sender).
///
/// RTT works the same way with one difference: a round trip is the
/// connection's, both ends', so a sender whose device answers late (its
/// CPU starved) or whose network holds packets lengthens every one of its
/// connections, as measured at either end. The other participants'
/// connections with the sender, and the sender's own connections with
/// them, corroborate it.
struct MeshLoss {
    /// Each participant's imported connections, peers read as participants.
    let received: [String: [ReceivedLoss]]

    struct Finding: Equatable {
        var sender: String
        /// The viewer's connections that received cleanly over the window.
        var cleanConnections: Int
        /// Others whose connections with the sender had it too (at least
        /// one), sorted, and the largest figure of theirs (loss %, RTT ms).
        var also: [String]
        var alsoPeak: Double
    }

    /// The sender whose side explains `viewer`'s loss (or RTT) over
    /// `[start, end]` (widened by the 2 s alignment), or nil: every
    /// connection of the viewer that had it then received from that sender
    /// alone, at least one other received cleanly, another participant's
    /// connection with the sender had it too and none was clean. Stalls in
    /// the incident must be of that sender's tracks (`stalledPublishers`),
    /// or the loss is not the whole story.
    func sender(of viewer: String, _ start: Int64, _ end: Int64, stalledPublishers: Set<String>,
                _ figure: ReceivedLoss.Figure = .loss) -> Finding? {
        let from = start - IncidentFinder.alignmentMs, to = end + IncidentFinder.alignmentMs
        let links = (received[viewer] ?? []).filter { $0.received(during: from, to) }
        guard links.count >= 2 else { return nil }
        let hit = links.filter { $0.peak(figure, during: from, to) != nil }
        let clean = links.count - hit.count
        guard !hit.isEmpty, clean > 0, hit.allSatisfy({ $0.peers.count == 1 }),
              // A peer reached over the local network (host candidates) while
              // the sender was reached through NAT or a relay shares the
              // viewer's network: its clean link never left it, and a
              // network both share reads the same as the sender's side.
              !(links.contains { $0.isHostOnly && $0.peak(figure, during: from, to) == nil } && hit.contains(where: \.isNatted))
        else { return nil }
        let senders = Set(hit.flatMap(\.peers))
        guard senders.count == 1, let sender = senders.first, sender != viewer,
              stalledPublishers.isSubset(of: [sender]),
              // Its media arrived cleanly on another of the viewer's connections.
              !links.contains(where: { $0.peak(figure, during: from, to) == nil && $0.peers.contains(sender) })
        else { return nil }
        // The other ends of the sender's connections, and what each view
        // of such a link measured: the others' connections from the
        // sender; for RTT, the sender's own connections with them too.
        var views: [String: [ReceivedLoss]] = [:]
        for other in received.keys where other != viewer && other != sender {
            // A bridge's connection carries several senders: its round trip
            // is to the bridge, not to the sender.
            views[other, default: []] += received[other]!.filter { $0.peers.contains(sender) && (figure == .loss || $0.peers.count == 1) }
        }
        if figure == .rtt {
            for link in received[sender] ?? [] where link.peers.count == 1 && link.peers[0] != viewer && link.peers[0] != sender {
                views[link.peers[0], default: []].append(link)
            }
        }
        var also: [String] = [], peak: Double?
        for other in views.keys.sorted() {
            let heard = views[other]!.filter { $0.received(during: from, to) }
            let peaks = heard.compactMap { $0.peak(figure, during: from, to) }
            // Received cleanly from the sender: the path to the viewer, not the sender.
            guard peaks.count == heard.count else { return nil }
            guard let p = peaks.max() else { continue }
            also.append(other)
            peak = max(peak ?? p, p)
        }
        guard let peak else { return nil }
        return Finding(sender: sender, cleanConnections: clean, also: also, alsoPeak: peak)
    }
}
