import MQABase
import MQAModel
import MQAAnalysis

/// A 1.1 context event as the simulator logs it: the kind and up to three
/// field values, in the order of the kind's descriptor (`nil` leaves an
/// optional field out). The encoder takes the field names from the
/// descriptor, so the simulator cannot drift from the table.
struct ContextEvent: Sendable {
    let kind: EventKind
    var values: (StaticString?, StaticString?, StaticString?) = (nil, nil, nil)
}

/// How often the context events happen. Fixed figures, not tunable
/// parameters: nothing measures them, the reports only show them.
enum ContextModel {
    /// Share of mobile clients that are iOS (the only ones with audio
    /// routes, interruptions and broadcast sharing).
    static let iOSShare = 0.6
    /// Per first connection: devices change in the minute before the join.
    static let deviceBeforeJoin = 0.35
    /// Per connection of a desktop client: a headset plugged or unplugged.
    static let deviceDuringCall = 0.12
    /// Per connection of an iOS client: a Bluetooth headset connects.
    static let bluetoothDuringCall = 0.3
    /// Per connection of an iOS client: a phone call or alarm interrupts audio.
    static let interruption = 0.12
    /// Of those, share that never recovers before the connection ends.
    static let interruptionNeverEnds = 0.2
    /// Per participant other than the host: raises a hand once.
    static let handup = 0.1

    static let desktopDevices: [StaticString] = ["MacBook Pro Microphone", "Jabra Evolve2 65", "Logitech BRIO", "USB Audio Device"]
    static let cameras: [StaticString] = ["FaceTime HD Camera", "Logitech BRIO", "OBS Virtual Camera"]
}

extension ClientSimulator {
    /// The client's context events, from their own random stream so that
    /// every other event of a seed stays what it was before they existed.
    static func contextEvents(plan: MeetingPlan, timeline: ClientTimeline, me: Int, seed: UInt64,
                              profile: ClientProfile) -> [(Int64, ContextEvent)] {
        var rng = contextStream(plan: plan, me: me, seed: seed)
        let part = plan.participants[me]
        let iOS = part.mobile && rng.chance(ContextModel.iOSShare)
        var out: [(Int64, ContextEvent)] = []
        func pick(_ list: [StaticString]) -> StaticString { list[rng.below(list.count)] }
        for (k, c) in timeline.connections.enumerated() {
            let span = c.span
            let length = span.end - span.start
            if k == 0 && rng.chance(ContextModel.deviceBeforeJoin) {
                var t = span.start - rng.ms(in: 5_000...60_000)
                if iOS || part.mobile {
                    out.append((t, ContextEvent(kind: .deviceChange, values: ("speaker", "default", nil))))
                } else {
                    out.append((t, ContextEvent(kind: .deviceChange, values: ("mic", "default", pick(ContextModel.desktopDevices)))))
                    t += rng.ms(in: 200...3_000)
                    out.append((t, ContextEvent(kind: .deviceChange, values: ("camera", "default", pick(ContextModel.cameras)))))
                }
            }
            if iOS {
                // The audio session starts on the speaker (or the earpiece).
                let first: StaticString = rng.chance(0.7) ? "speaker" : "receiver"
                out.append((span.start + rng.ms(in: 100...900), ContextEvent(kind: .audioRouteChange, values: (first, "categoryChange", nil))))
                if length > 60_000 && rng.chance(ContextModel.bluetoothDuringCall) {
                    let t = span.start + 20_000 + Int64(rng.unit() * Double(length - 40_000))
                    out.append((t, ContextEvent(kind: .audioRouteChange, values: ("bluetooth", "newDeviceAvailable", nil))))
                    if rng.chance(0.4) {
                        let back = t + rng.ms(in: 30_000...600_000)
                        if back < span.end {
                            out.append((back, ContextEvent(kind: .audioRouteChange, values: (first, "oldDeviceUnavailable", nil))))
                        }
                    }
                }
                if length > 60_000 && rng.chance(ContextModel.interruption) {
                    let t = span.start + 10_000 + Int64(rng.unit() * Double(length - 20_000))
                    out.append((t, ContextEvent(kind: .audioInterruption, values: ("began", nil, nil))))
                    let end = t + rng.ms(in: 4_000...45_000)
                    if !rng.chance(ContextModel.interruptionNeverEnds) && end < span.end {
                        out.append((end, ContextEvent(kind: .audioInterruption, values: ("ended", nil, nil))))
                    }
                }
            } else if !part.mobile && length > 120_000 && rng.chance(ContextModel.deviceDuringCall) {
                let t = span.start + 30_000 + Int64(rng.unit() * Double(length - 60_000))
                let headset: StaticString = "Jabra Evolve2 65"
                let added = rng.chance(0.5)
                out.append((t, ContextEvent(kind: .deviceChange, values: ("mic", added ? "added" : "removed", headset))))
                if added { out.append((t + rng.ms(in: 300...1_500), ContextEvent(kind: .deviceChange, values: ("mic", "default", headset)))) }
            }
        }
        if me != plan.host, let c = timeline.connections.first, c.span.end - c.span.start > 90_000, rng.chance(ContextModel.handup) {
            let t = c.span.start + 30_000 + Int64(rng.unit() * Double(c.span.end - c.span.start - 60_000))
            out.append((t, ContextEvent(kind: .userHandup, values: ("request", nil, nil))))
            let answer = t + rng.ms(in: 5_000...90_000)
            if answer < c.span.end {
                let step: StaticString = rng.chance(0.6) ? "confirmOpen" : rng.chance(0.5) ? "cancel" : "rejectOpen"
                out.append((answer, ContextEvent(kind: .userHandup, values: (step, nil, nil))))
            }
        }
        // An iOS sharer's own app logs the broadcast extension around its share.
        if iOS {
            for share in plan.shares where share.publisher == me {
                out.append((share.span.start - rng.ms(in: 100...800), ContextEvent(kind: .shareBroadcastStart)))
                out.append((share.span.end + rng.ms(in: 50...400), ContextEvent(kind: .shareBroadcastStop)))
            }
        }
        // Format 1.2: the network switch of the client's profile.
        if let c = profile.networkChange {
            out.append((c.ts, ContextEvent(kind: .networkChange, values: (c.netType, c.detail, nil))))
        }
        return out
    }

    /// The random stream of a client's context events.
    static func contextStream(plan: MeetingPlan, me: Int, seed: UInt64) -> SplitMix64 {
        SplitMix64(seed: seed, stream: ((UInt64(plan.index) << 16 | UInt64(me)) &* 4 &+ 3) ^ (1 << 62))
    }

    /// Whether the client is an iOS device: the first draw of its context
    /// stream, so that its platform (`ClientProfile`) and its iOS-only
    /// context events agree.
    static func isIOS(plan: MeetingPlan, me: Int, seed: UInt64) -> Bool {
        var rng = contextStream(plan: plan, me: me, seed: seed)
        return plan.participants[me].mobile && rng.chance(ContextModel.iOSShare)
    }
}
