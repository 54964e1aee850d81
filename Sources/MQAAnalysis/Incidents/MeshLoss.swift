import MQAModel

/// Whose network lost a viewer's packets on a mesh call (Docs/incidents.md,
/// "Mesh calls: whose loss").
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
struct MeshLoss {
    /// Each participant's imported connections, peers read as participants.
    let received: [String: [ReceivedLoss]]

    struct Finding: Equatable {
        var sender: String
        /// The viewer's connections that received cleanly over the window.
        var cleanConnections: Int
        /// Other viewers whose connections from the sender lost packets too
        /// (at least one), sorted, and the largest of their loss.
        var alsoLossy: [String]
        var alsoLossyPeakPct: Double
    }

    /// The sender whose uplink explains `viewer`'s loss over `[start, end]`
    /// (widened by the 2 s alignment), or nil: every connection of the
    /// viewer that lost packets then received from that sender alone, at
    /// least one other received cleanly, another viewer's connection from
    /// the sender lost packets too and none received it cleanly. Stalls in
    /// the incident must be of that sender's tracks (`stalledPublishers`),
    /// or the loss is not the whole story.
    func sender(of viewer: String, _ start: Int64, _ end: Int64, stalledPublishers: Set<String>) -> Finding? {
        let from = start - IncidentFinder.alignmentMs, to = end + IncidentFinder.alignmentMs
        let links = (received[viewer] ?? []).filter { $0.received(during: from, to) }
        guard links.count >= 2 else { return nil }
        let lossy = links.filter { $0.peak(during: from, to) != nil }
        let clean = links.count - lossy.count
        guard !lossy.isEmpty, clean > 0, lossy.allSatisfy({ $0.peers.count == 1 }) else { return nil }
        let senders = Set(lossy.flatMap(\.peers))
        guard senders.count == 1, let sender = senders.first, sender != viewer,
              stalledPublishers.isSubset(of: [sender]),
              // Its media arrived cleanly on another of the viewer's connections.
              !links.contains(where: { $0.peak(during: from, to) == nil && $0.peers.contains(sender) })
        else { return nil }
        var also: [String] = [], peak: Double?
        for other in received.keys.sorted() where other != viewer && other != sender {
            for link in received[other]! where link.peers.contains(sender) && link.received(during: from, to) {
                guard let p = link.peak(during: from, to) else { return nil }
                if also.last != other { also.append(other) }
                peak = max(peak ?? p, p)
            }
        }
        guard let peak else { return nil }
        return Finding(sender: sender, cleanConnections: clean, alsoLossy: also, alsoLossyPeakPct: peak)
    }
}
