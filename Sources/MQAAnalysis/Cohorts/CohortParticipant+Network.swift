import MQABase
import MQAModel

extension CohortParticipant {
    /// Splits the participant's figures by the network they were measured
    /// on, when its network changed (`NetworkTimeline.changes`): a client
    /// that joins on Wi-Fi and moves to cellular stalls on cellular, and
    /// "do cellular users stall more?" must see those stalls there.
    ///
    /// Reanalyses the client (its tier holds and warm MOS with their
    /// times) under `config`, and attributes each figure to the network
    /// holding at its time: tier time and watched time by the overlap of
    /// their stretches, stalled time likewise, a warm MOS by its report, a
    /// first frame by its subscribe, a disconnect by its time. Each network
    /// with a figure becomes a piece (`networkPieces`), counted as one
    /// participant of that network's cohort; the other fields keep the
    /// participant whole. When only one network has figures, there is no
    /// piece and `client.netType` is that network.
    public mutating func split(by timeline: NetworkTimeline, client: ClientInput, cdn: Bool,
                               config: TierConfig = TierConfig()) throws {
        guard timeline.changes else { return }
        let c = try ClientAnalysis.analyze(uid: client.uid, events: client.events, reports: client.reports,
                                           config: config, cdn: cdn, keepingWarmMOS: true)
        split(by: timeline, holds: c.timeline.holds, warmMOS: c.warmMOS, subscriptions: c.subscriptions,
              disconnects: c.participant.disconnects, cdn: cdn)
    }

    /// `split(by:client:cdn:config:)` on an analysis already made.
    mutating func split(by timeline: NetworkTimeline, holds: [TierHold], warmMOS: [TimedMOS],
                        subscriptions: [Subscription], disconnects: [Disconnect], cdn: Bool) {
        guard timeline.changes else { return }
        // One piece per network; stretches of one network share it.
        var nets: [String?] = []
        let slot = timeline.values.map { net in
            if let k = nets.firstIndex(of: net) { return k }
            nets.append(net)
            return nets.count - 1
        }
        var pieces = nets.map { net in
            var p = CohortParticipant(uid: uid, engine: engine, client: client, watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                      measuredMs: 0, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
            p.client.netType = net
            return p
        }
        var mos = [[Double]](repeating: [], count: nets.count)
        if !cdn {
            for h in holds where h.tier != .unknown {
                let low = h.tier == .poor || h.tier == .bad
                timeline.overlaps(from: h.from, to: h.to) { i, ms in
                    pieces[slot[i]].measuredMs += ms
                    if low { pieces[slot[i]].lowTierMs += ms }
                }
            }
            for m in warmMOS { mos[slot[timeline.stretch(at: m.ts)]].append(m.mos) }
        }
        for s in subscriptions where s.subscriber == uid {
            guard let first = s.firstFrameTs else { continue }
            timeline.overlaps(from: first, to: s.endTs) { i, ms in pieces[slot[i]].watchedMs += ms }
            for stall in s.stalls {
                timeline.overlaps(from: stall.start, to: stall.end) { i, ms in pieces[slot[i]].stalledMs += ms }
            }
            if s.kind != nil { pieces[slot[timeline.stretch(at: s.subscribeTs)]].firstFrameMs.append(first - s.subscribeTs) }
        }
        for d in disconnects where d.error != nil { pieces[slot[timeline.stretch(at: d.ts)]].abnormalDisconnects += 1 }

        // A network the participant has no figure on is no piece.
        let kept = pieces.indices.filter { k in
            let p = pieces[k]
            return p.watchedMs > 0 || p.stalledMs > 0 || p.measuredMs > 0 || !mos[k].isEmpty || !p.firstFrameMs.isEmpty
                || p.abnormalDisconnects > 0
        }
        if kept.count == 1 {
            client.netType = nets[kept[0]]
            return
        }
        guard kept.count > 1 else { return }
        networkPieces = kept.map { k in
            var p = pieces[k]
            p.mosP50 = Distribution(mos[k])?.p50
            return p
        }
    }
}
