import MQABase
import MQAModel
import MQAStore

// What a dump's standard stats add about a connection beyond the events:
// its network path, outgoing video's limits, audio concealment.
extension ConnectionConverter {
    /// The network path, outgoing video's limits and audio concealment.
    mutating func noteContext(_ sample: StatsSample, _ report: (String) -> StatsReport?) {
        if let pair = ConnectionConverter.selectedPair(sample), let localID = pair.text(.localCandidateId),
            localID != lastLocalCandidate, let local = report(localID), let type = local.text(.candidateType)
        {
            lastLocalCandidate = localID
            var path = type + "/" + (local.text(.relayProtocol) ?? local.text(.protocol) ?? "?")
            if path.unicodeScalars.count > 40 { path = String(path.prefix(40)) }
            if paths.last != path && paths.count < 8 { paths.append(path) }
        }
        let interval = previousTs.map { sample.ts - $0 } ?? 0
        // Per interval once, whatever the number of simulcast layers: the
        // encoder's CPU limit first, then the network's.
        var limit: Int? = nil
        var sending = 0
        for (id, r) in sample.reports {
            if r.isLocalOutbound && r.isKind("video") {
                sending += 1
                // The reason holds for the interval a sample ends, and only
                // for a sender there at its start: a stream's first sample
                // says nothing of the time before it (counting that interval
                // read 17 s on a public recording where Chrome's own
                // durations say 16.1 s).
                if sendingVideo.contains(id), let reason = r.text(.qualityLimitationReason), reason != "none" {
                    let rank = ConnectionContext.limitReasons.firstIndex(of: reason) ?? 2
                    limit = min(limit ?? rank, rank)
                }
            }
            // Audible concealment: samples made up while packets were
            // missing, not the silence played where nothing was sent (a
            // muted or idle sender, an SFU's unused audio slot). A stream
            // that never received a packet is all such silence: Google
            // Meet's two idle slots of three made a clean call "86 %".
            if r.isLocalInbound && r.isKind("audio"), (r.number(.packetsReceived) ?? .zero).isPositive,
               let all = r.number(.concealedSamples), let n = r.number(.totalSamplesReceived) {
                let silent = r.number(.silentConcealedSamples) ?? .zero
                let c = silent < all ? all - silent : .zero
                sawConcealment = true
                let last = concealmentCounters[id] ?? (.zero, .zero)
                // A restarted counter counts from zero, as the packet counters do.
                let base = (c < last.samples || n < last.received) ? (samples: Fixed.zero, received: Fixed.zero) : last
                concealed = (concealed.samples + (c - base.samples), concealed.received + (n - base.received))
                concealmentCounters[id] = (c, n)
            }
        }
        if let limit, interval > 0 { limitedMs[ConnectionContext.limitReasons[limit], default: 0] &+= interval }
        if sending > 0 || !sendingVideo.isEmpty {
            sendingVideo.removeAll(keepingCapacity: true)
            for (id, r) in sample.reports where r.isLocalOutbound && r.isKind("video") { sendingVideo.insert(id) }
        }
    }

    /// Concealed over received audio samples, 0–1.
    var concealment: Double? {
        guard sawConcealment, concealed.received.isPositive else { return nil }
        return min(1, max(0, Double(concealed.samples.raw) / Double(concealed.received.raw)))
    }

    /// The candidate pair in use, by the rtt rule's order (named by a
    /// transport, else marked selected, else nominated and succeeded).
    static func selectedPair(_ sample: StatsSample) -> StatsReport? {
        let named = transportPairIDs(sample)
        for rule in PairRule.allCases {
            for (id, r) in sample.reports where r.category == .candidatePair && rule.matches(id, r, named: named) { return r }
        }
        return nil
    }

    /// The rtt rule's ways of telling the pair in use, in their order.
    enum PairRule: CaseIterable {
        case namedByTransport, selected, nominatedAndSucceeded

        func matches(_ id: String, _ r: StatsReport, named: [String]) -> Bool {
            switch self {
            case .namedByTransport: named.contains(id)
            case .selected: r.bool(.selected) == true
            case .nominatedAndSucceeded: r.bool(.nominated) == true && r.text(.state) == "succeeded"
            }
        }
    }

    /// The pairs the sample's transports name as selected.
    static func transportPairIDs(_ sample: StatsSample) -> [String] {
        var named: [String] = []
        for (_, r) in sample.reports where r.category == .transport {
            if let id = r.text(.selectedCandidatePairId) { named.append(id) }
        }
        return named
    }
}
