import MQABase
import MQAModel

extension CohortParticipant {
    /// Splits the participant's figures by the value each changing client
    /// field had when they were measured (`ClientFieldTimeline.changes`): a
    /// client that joins on Wi-Fi and moves to cellular stalls on
    /// cellular, and "do cellular users stall more?" must see those stalls
    /// there; one that rejoins from a laptop after a phone stalled on the
    /// phone ("the last value before a report holds").
    ///
    /// Reanalyses the client once (its tier holds and warm MOS with their
    /// times) under `config`, and for each field attributes each figure to
    /// the value holding at its time: tier time and watched time by the
    /// overlap of their stretches, stalled time likewise, a warm MOS by its
    /// report, a first frame by its subscribe, a disconnect by its time.
    /// Each value with a figure becomes a piece (`pieces`), counted as one
    /// participant of that value's cohort; the other fields keep the
    /// participant whole. When only one value has figures, there is no
    /// piece and the participant's `client` names that value.
    public mutating func split(by timelines: [(field: CohortField, timeline: ClientFieldTimeline)], client: ClientInput,
                               cdn: Bool, config: TierConfig = TierConfig()) throws {
        guard timelines.contains(where: { $0.timeline.changes }) else { return }
        let c = try ClientAnalysis.analyze(uid: client.uid, events: client.events, reports: client.reports,
                                           config: config, cdn: cdn, keepingWarmMOS: true)
        for (field, timeline) in timelines {
            split(field, by: timeline, holds: c.timeline.holds, warmMOS: c.warmMOS, subscriptions: c.subscriptions,
                  disconnects: c.participant.disconnects, cdn: cdn)
        }
    }

    /// Splits by one field on an analysis already made (see
    /// `split(by:client:cdn:config:)`); fields split in
    /// `CohortField.allCases` order keep `pieces` in that order.
    mutating func split(_ field: CohortField, by timeline: ClientFieldTimeline, holds: [TierHold], warmMOS: [TimedMOS],
                        subscriptions: [Subscription], disconnects: [Disconnect], cdn: Bool) {
        guard timeline.changes, field.changesInCall, pieceOf == nil else { return }
        pieces.removeAll { $0.pieceOf == field }
        // One piece per value; stretches of one value share it.
        var values: [String?] = []
        let slot = timeline.values.map { v in
            if let k = values.firstIndex(of: v) { return k }
            values.append(v)
            return values.count - 1
        }
        var pieces = values.map { value in
            var p = CohortParticipant(uid: uid, engine: engine, client: client, watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                      measuredMs: 0, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
            p.client[field] = value
            p.pieceOf = field
            return p
        }
        var mos = [[Double]](repeating: [], count: values.count)
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
            // A subscription belongs to the value it was opened under.
            let opened = slot[timeline.stretch(at: s.subscribeTs)]
            pieces[opened].subscriptions += 1
            guard let first = s.firstFrameTs else {
                pieces[opened].neverRendered += 1
                continue
            }
            timeline.overlaps(from: first, to: s.endTs) { i, ms in pieces[slot[i]].watchedMs += ms }
            for stall in s.stalls {
                timeline.overlaps(from: stall.start, to: stall.end) { i, ms in pieces[slot[i]].stalledMs += ms }
            }
            if s.kind != nil { pieces[opened].firstFrameMs.append(first - s.subscribeTs) }
        }
        for d in disconnects where d.error != nil { pieces[slot[timeline.stretch(at: d.ts)]].abnormalDisconnects += 1 }

        // A value the participant has no figure under is no piece.
        let kept = pieces.indices.filter { k in
            let p = pieces[k]
            return p.watchedMs > 0 || p.stalledMs > 0 || p.measuredMs > 0 || !mos[k].isEmpty || !p.firstFrameMs.isEmpty
                || p.abnormalDisconnects > 0 || p.subscriptions > 0
        }
        if kept.count == 1 {
            client[field] = values[kept[0]]
            return
        }
        guard kept.count > 1 else { return }
        self.pieces += kept.map { k in
            var p = pieces[k]
            p.mosP50 = Distribution(mos[k])?.p50
            return p
        }
    }
}
