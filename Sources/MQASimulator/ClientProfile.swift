import MQABase
import MQAModel
import MQAAnalysis

/// Who a client is, as format 1.2 logs it on `meeting_join`: platform, OS,
/// SDK and app versions, device model, network at join; and at most one
/// network switch during its first connection (`network_change`).
///
/// Drawn from a random stream of its own, so that every other line of a
/// seed keeps its values; only the quality reports after a switch to
/// cellular change (the link gets worse there, see `LinkModel`).
struct ClientProfile: Sendable {
    /// Whether the app logs the 1.2 fields at all: an older app build does not.
    var logsClientFields: Bool
    var platform: StaticString
    var osVersion: StaticString
    var sdkVersion: StaticString
    var appVersion: StaticString
    var device: StaticString
    /// The network at join.
    var netType: StaticString
    /// The switch: when, to which network, and its `detail`.
    var networkChange: (ts: Int64, netType: StaticString, detail: StaticString)?
    /// The switch goes to cellular.
    var switchesToCellular = false
    /// Per flowing 2 s step of a subscription, the chance that this
    /// client's SDK stalls the video while decoding (0 but for the SDK
    /// version with the planted regression).
    var decoderStallChance = 0.0

    /// Whether the client is on cellular at `t` because it switched there
    /// (a client that joined on cellular has the mobile RTT from the start).
    @inline(__always)
    func switchedToCellular(at t: Int64) -> Bool {
        guard switchesToCellular, let c = networkChange else { return false }
        return t >= c.ts
    }

    /// Whether the client is on cellular at `t`: it joined on cellular and
    /// has not found Wi-Fi yet, or it switched to cellular before `t`.
    @inline(__always)
    func onCellular(at t: Int64) -> Bool {
        if netType.description == "cellular" {
            guard let c = networkChange else { return true }
            return t < c.ts
        }
        return switchedToCellular(at: t)
    }

    init(plan: MeetingPlan, timeline: ClientTimeline, me: Int, seed: UInt64) {
        var rng = SplitMix64(seed: seed, stream: ((UInt64(plan.index) << 16 | UInt64(me)) &* 4 &+ 3) ^ (1 << 61))
        let mobile = plan.participants[me].mobile
        let iOS = ClientSimulator.isIOS(plan: plan, me: me, seed: seed)
        func pick(_ list: [StaticString]) -> StaticString { list[rng.below(list.count)] }
        logsClientFields = !rng.chance(ClientProfileModel.withoutFieldsShare)
        let kind: Int
        if mobile {
            kind = iOS ? 0 : 1
        } else {
            kind = 2 + rng.weighted(ClientProfileModel.desktopWeights)
        }
        let p = ClientProfileModel.platforms[kind]
        platform = p.name
        osVersion = pick(p.os)
        device = pick(p.devices)
        let sdk = rng.weighted(ClientProfileModel.sdkWeights)
        sdkVersion = ClientProfileModel.sdkVersions[sdk]
        decoderStallChance = ClientProfileModel.decoderStallChance[sdk]
        appVersion = pick(ClientProfileModel.appVersions)
        var wifi = false
        if mobile {
            wifi = rng.chance(0.6)
            netType = wifi ? "wifi" : "cellular"
        } else {
            let x = rng.unit()
            wifi = x < 0.55
            netType = wifi ? "wifi" : x < 0.97 ? "ethernet" : "other"
        }
        networkChange = nil
        guard let first = timeline.connections.first else { return }
        let length = first.span.end - first.span.start
        guard mobile, length > 120_000 else { return }
        guard rng.chance(wifi ? ClientProfileModel.wifiToCellular : ClientProfileModel.cellularToWifi) else { return }
        let t = first.span.start + 30_000 + Int64(rng.unit() * Double(length - 60_000))
        networkChange = wifi ? (t, "cellular", "wifi→cellular") : (t, "wifi", "cellular→wifi")
        switchesToCellular = wifi
    }
}

/// The spread of clients. Fixed figures, like `ContextModel`'s: nothing
/// measures them; the reports show them and fleet questions group by them.
enum ClientProfileModel {
    /// Clients whose app build predates format 1.2 (no client fields).
    static let withoutFieldsShare = 0.08
    /// Desktop clients: macos, windows, linux, web.
    static let desktopWeights = [0.35, 0.42, 0.05, 0.18]
    /// Per mobile client whose first connection is over two minutes: it
    /// leaves Wi-Fi for cellular (or, joined on cellular, finds Wi-Fi).
    static let wifiToCellular = 0.3
    static let cellularToWifi = 0.15

    struct Platform {
        let name: StaticString
        let os: [StaticString]
        let devices: [StaticString]
    }

    /// ios, android (mobile), then the desktop ones in `desktopWeights` order.
    static let platforms: [Platform] = [
        Platform(name: "ios", os: ["17.4.1", "17.6.1", "18.1", "18.2"],
                 devices: ["iPhone15,2", "iPhone14,5", "iPhone16,1", "iPad13,18"]),
        Platform(name: "android", os: ["13", "14", "15"], devices: ["SM-S918B", "Pixel 8", "Pixel 7a", "SM-A546B"]),
        Platform(name: "macos", os: ["14.6", "15.1", "15.2"], devices: ["MacBookPro18,3", "Mac14,2", "MacBookAir10,1"]),
        Platform(name: "windows", os: ["10.0.19045", "10.0.22631", "10.0.26100"],
                 devices: ["Latitude 7440", "Surface Laptop 5", "ThinkPad X1 Carbon"]),
        Platform(name: "linux", os: ["6.8", "6.11"], devices: ["ThinkPad T14", "Framework 13"]),
        Platform(name: "web", os: ["10.0", "14.6", "6.8"], devices: ["Chrome 131", "Firefox 133", "Safari 18.1", "Edge 131"]),
    ]

    /// Older SDKs are rarer.
    static let sdkVersions: [StaticString] = ["5.1.0", "5.1.4", "5.2.0", "5.2.3", "5.3.0", "5.3.1"]
    static let sdkWeights = [0.05, 0.1, 0.15, 0.25, 0.3, 0.15]
    /// The planted differences the cohort reports should find (and the
    /// tests check they do): SDK 5.3.0 stalls while decoding, on any
    /// network, at this chance per flowing step (1.5–4 s each), about 1.5×
    /// the other versions' stall rate; 5.3.1 fixes it.
    static let decoderStallChance = [0, 0, 0, 0, 0.006, 0]
    static let decoderStallMs = 1_500...4_000
    static let appVersions: [StaticString] = ["2026.9.1", "2026.10.0", "2026.10.2", "2026.11.1", "2026.11.2"]
}
