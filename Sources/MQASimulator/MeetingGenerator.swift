import MQABase
import MQAModel
import MQAAnalysis

/// One meeting's output: every client's lines, back to back in a buffer.
struct GeneratedMeeting {
    let plan: MeetingPlan
    /// Per participant (plan order): its lines' byte range in the buffer.
    var ranges: [Range<Int>] = []
    var lines = 0
    var qualityReports = 0
    var truth: MeetingTruth? = nil
}

/// Generates one meeting: plan, phase one for every client, then each
/// client's log (phase two) written into `writer`.
enum MeetingGenerator {
    static func generate(seed: UInt64, index: Int, parameters p: SimulationParameters,
                         collect: Bool, writer: inout LineWriter,
                         scratch: inout [LogEvent]) -> GeneratedMeeting {
        let plan = MeetingPlan(seed: seed, index: index, parameters: p)
        let timelines = plan.participants.indices.map {
            ClientTimeline(plan: plan, participant: $0, seed: seed, parameters: p)
        }
        var out = GeneratedMeeting(plan: plan)
        var clients: [ClientTruth] = []
        var subscriptions: [SubscriptionTruth] = []
        var stalls: [StallTruth] = []
        var exposure = [Int64](repeating: 0, count: NetworkState.allCases.count)

        for me in plan.participants.indices {
            var sim = ClientSimulator(plan: plan, timelines: timelines, me: me, seed: seed,
                                      parameters: p, collect: collect, scratch: scratch)
            sim.run()
            var encoder = EventEncoder(plan: plan, me: me, style: sim.style, profile: sim.profile,
                                       errors: p.connectivity.networkErrors)
            let start = writer.buffer.count
            for e in sim.events { encoder.write(e, &writer) }
            out.ranges.append(start..<writer.buffer.count)
            out.lines += sim.events.count
            out.qualityReports += sim.events.reduce(0) { n, e in
                switch e.payload {
                case .quality, .coldQuality: n + 1
                default: n
                }
            }
            if collect {
                clients.append(clientTruth(plan: plan, timeline: timelines[me], sim: sim))
                subscriptions += sim.subscriptions
                stalls += sim.stalls
                for s in exposure.indices { exposure[s] += sim.exposureMs[s] }
            }
            scratch = sim.events
        }
        if collect {
            out.truth = MeetingTruth(
                meeting: plan.id, engine: plan.engine, title: plan.titles[0],
                start: plan.start, end: plan.end, clients: clients,
                subscriptions: subscriptions, stalls: stalls, exposureMs: exposure)
        }
        return out
    }

    private static func clientTruth(plan: MeetingPlan, timeline: ClientTimeline,
                                    sim: ClientSimulator) -> ClientTruth {
        let part = plan.participants[timeline.participant]
        let connections = timeline.connections.map { c -> ConnectionTruth in
            let reason: String
            switch c.end {
            case .leave: reason = "leave"
            case .networkDrop: reason = "network"
            case .meetingEnded: reason = "meeting_ended"
            case .kicked: reason = "kicked"
            case .silent: reason = "silent"
            }
            return ConnectionTruth(start: c.span.start, end: c.span.end,
                                   isReconnect: c.isReconnect, endReason: reason)
        }
        let presenceEnd = timeline.connections.last?.span.end ?? part.leaveAt
        return ClientTruth(
            uid: part.uid, mobile: part.mobile, connections: connections,
            network: timeline.segments(until: presenceEnd).map {
                NetworkSegment(start: $0.span.start, end: $0.span.end, state: $0.state)
            },
            backgrounds: timeline.backgrounds.map { ($0.start, $0.end) },
            qualityReports: sim.qualityReports, coldReports: sim.coldReports)
    }
}
