import MQABase
import MQAModel
import MQAAnalysis

/// How a connection ends.
enum ConnectionEnd: Sendable, Equatable {
    case leave                      // meeting_leave
    case networkDrop(error: Int)    // disconnect reason network, error index
    case meetingEnded               // disconnect reason meeting_ended
    case kicked                     // disconnect reason kicked
    case silent                     // app killed: nothing logged
}

/// One stretch from meeting_join/reconnect to its end.
struct Connection: Sendable {
    var span: Interval
    var isReconnect: Bool
    var end: ConnectionEnd
}

/// Phase one of a client's simulation: its network state per step, its
/// connections (drops, reconnects) and the spans its app spent in the
/// background. Everything other clients need to know about it.
struct ClientTimeline: Sendable {
    let participant: Int
    let stepMs: Int64
    /// Step k covers [origin + k * stepMs, origin + (k + 1) * stepMs).
    let origin: Int64
    let states: [NetworkState]
    private(set) var connections: [Connection] = []
    /// Connection spans, for interval arithmetic.
    private(set) var spans: [Interval] = []
    private(set) var backgrounds: [Interval] = []

    @inline(__always)
    func state(at t: Int64) -> NetworkState {
        let k = Int((t - origin) / stepMs)
        return states[min(max(k, 0), states.count - 1)]
    }

    func inBackground(_ t: Int64) -> Bool {
        for b in backgrounds {
            if b.start > t { return false }
            if t < b.end { return true }
        }
        return false
    }

    init(plan: MeetingPlan, participant i: Int, seed: UInt64, parameters p: SimulationParameters) {
        var rng = SplitMix64(seed: seed, stream: (UInt64(plan.index) << 16 | UInt64(i)) &* 4 &+ 2)
        let part = plan.participants[i]
        participant = i
        stepMs = Int64(p.quality.reportIntervalMs)
        origin = part.joinAt
        let steps = Int((part.leaveAt - part.joinAt) / stepMs) + 1
        let chain = NetworkChain(transitions: part.mobile ? p.network.mobileTransitions
                                                          : p.network.fixedTransitions)
        states = chain.run(steps: steps, &rng)

        let c = p.connectivity
        let backgroundChance = part.mobile ? c.backgroundChanceMobile : c.backgroundChanceFixed
        var connStart = part.joinAt
        var isReconnect = false
        var reconnectAt: Int64? = nil
        var gone = false
        for k in 0..<steps {
            let stepStart = origin + Int64(k) * stepMs
            if stepStart >= part.leaveAt { break }
            if let r = reconnectAt {
                if r >= stepStart + stepMs { continue }
                connStart = r; isReconnect = true; reconnectAt = nil
            }
            let model = p.network.states[states[k].rawValue]
            if rng.chance(model.disconnectChance) {
                let dropAt = max(connStart + 1, stepStart + Int64(rng.below(Int(stepMs))))
                if dropAt >= part.leaveAt { break }
                let error = rng.below(c.networkErrors.count)
                append(Connection(span: Interval(start: connStart, end: dropAt),
                                  isReconnect: isReconnect, end: .networkDrop(error: error)))
                let back = dropAt + rng.ms(in: c.reconnectDelayMs)
                if rng.chance(c.reconnectShare) && back < part.leaveAt - 5_000 {
                    reconnectAt = back
                } else {
                    gone = true
                    break
                }
                continue
            }
            let busy = backgrounds.last.map { $0.end > stepStart } ?? false
            if !busy && rng.chance(backgroundChance) {
                let from = stepStart + Int64(rng.below(Int(stepMs)))
                let to = min(from + rng.ms(in: c.backgroundMs), part.leaveAt)
                if to > from { backgrounds.append(Interval(start: from, end: to)) }
            }
        }
        if !gone {
            if let r = reconnectAt { connStart = r; isReconnect = true }
            let end: ConnectionEnd
            switch part.end {
            case .leave: end = .leave
            case .meetingEnded: end = .meetingEnded
            case .kicked: end = .kicked
            case .appKilled: end = .silent
            }
            append(Connection(span: Interval(start: connStart, end: part.leaveAt),
                              isReconnect: isReconnect, end: end))
        }
    }

    private mutating func append(_ c: Connection) {
        connections.append(c)
        spans.append(c.span)
    }

    /// Network state segments [start, end) over the client's presence.
    func segments(until end: Int64) -> [(span: Interval, state: NetworkState)] {
        var out: [(span: Interval, state: NetworkState)] = []
        for (k, s) in states.enumerated() {
            let a = origin + Int64(k) * stepMs
            if a >= end { break }
            let b = min(a + stepMs, end)
            if let last = out.last, last.state == s, last.span.end == a {
                out[out.count - 1].span.end = b
            } else {
                out.append((Interval(start: a, end: b), s))
            }
        }
        return out
    }
}
