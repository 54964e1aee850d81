import MQABase
import MQAModel
import MQAAnalysis

/// Every parameter of the simulation model, in one place.
///
/// Probabilities are in [0, 1]. "Per step" means per report interval
/// (`quality.reportIntervalMs`, 2 s by default): the network Markov chain,
/// disconnect, background and stall hazards all advance once per step.
/// Times are milliseconds, bitrates kbps, loss percent.
///
/// A different fleet is one edit: e.g. `.mobileHeavy` only changes
/// `network.mobileShare` and `connectivity.backgroundChance`.
public struct SimulationParameters: Sendable, Equatable {

    // MARK: - Calendar and meeting shape

    public struct Meetings: Sendable, Equatable {
        /// Midnight UTC of the first day a meeting may start on
        /// (2026-11-01T00:00:00Z). Every timestamp is in the past and after 2000.
        public var firstDayEpochMs: Int64 = 1_793_491_200_000
        /// Meetings start on one of this many days from `firstDayEpochMs`
        /// (19: before 2026-11-20).
        public var days: Int = 19
        /// Start hour (UTC) range; the minute is uniform in 0..<60.
        public var startHourUTC: ClosedRange<Int> = 7...18
        /// Number of participants (distinct clients) per meeting.
        public var participants: ClosedRange<Int> = 2...12
        /// Scheduled meeting length in minutes.
        public var durationMinutes: ClosedRange<Int> = 5...60
        /// Share of meetings run through the CDN engine: no quality_report,
        /// connection_quality_change or active_speakers_change at all.
        public var cdnShare: Double = 0.2
        /// On-time joiners (not the host, who starts the meeting) arrive
        /// staggered over this window after the start.
        public var joinStaggerMs: ClosedRange<Int> = 0...90_000
        /// Share of non-host participants who join late: uniformly within the
        /// first `lateJoinWindow` of the meeting, after the stagger window.
        public var lateJoinShare: Double = 0.2
        public var lateJoinWindow: Double = 0.6
        /// Share of participants who leave early: uniformly within the last
        /// 70 % of their presence (at least 30 s after joining).
        public var earlyLeaveShare: Double = 0.2
        /// Share of meetings the host ends for everyone: whoever is still
        /// connected logs `disconnect` with reason `meeting_ended`.
        /// Otherwise everyone logs `meeting_leave` near the end.
        public var endedByHostShare: Double = 0.4
        /// Share of meetings in which the host removes one participant
        /// (`disconnect` reason `kicked`).
        public var kickShare: Double = 0.04
        /// Share of clients whose log just stops (app killed): no leave event.
        public var appKilledShare: Double = 0.02
        /// Share of clients that omit the optional `title` on `meeting_join`.
        public var joinWithoutTitleShare: Double = 0.1
    }

    // MARK: - Network (Markov chain per client)

    public struct Network: Sendable, Equatable {
        /// Share of clients on a mobile device (mobile transition matrix,
        /// higher base RTT, may background the app).
        public var mobileShare: Double = 0.25
        /// Per-step transition probabilities for fixed (wired / Wi-Fi)
        /// clients; row = from, column = to, in `NetworkState` order
        /// (good, congested, lossyWiFi, mobileHandover). Rows sum to 1.
        public var fixedTransitions: [[Double]] = [
            [0.985, 0.008, 0.007, 0.000],
            [0.080, 0.900, 0.020, 0.000],
            [0.080, 0.010, 0.910, 0.000],
            [0.700, 0.000, 0.000, 0.300],
        ]
        /// Per-step transition probabilities for mobile clients.
        public var mobileTransitions: [[Double]] = [
            [0.962, 0.012, 0.012, 0.014],
            [0.100, 0.860, 0.020, 0.020],
            [0.080, 0.020, 0.860, 0.040],
            [0.500, 0.100, 0.100, 0.300],
        ]
        /// Per-state effect on the measured values, indexed by
        /// `NetworkState.rawValue`.
        public var states: [NetworkStateModel] = [
            // good
            NetworkStateModel(
                lossPercent: 0...0.4, burstChance: 0.01, burstLossPercent: 0.5...3,
                burstSteps: 1...2, extraRttMs: 0...12, jitterMs: 1...8,
                capacityKbps: 2600...4000, disconnectChance: 0.00005,
                stallChance: 0.0005, stallMs: 1200...4000),
            // congested
            NetworkStateModel(
                lossPercent: 1...5, burstChance: 0.12, burstLossPercent: 3...12,
                burstSteps: 1...3, extraRttMs: 120...420, jitterMs: 25...70,
                capacityKbps: 350...900, disconnectChance: 0.001,
                stallChance: 0.03, stallMs: 1500...9000),
            // lossyWiFi
            NetworkStateModel(
                lossPercent: 2...7, burstChance: 0.25, burstLossPercent: 6...28,
                burstSteps: 1...4, extraRttMs: 20...90, jitterMs: 20...65,
                capacityKbps: 900...1800, disconnectChance: 0.0015,
                stallChance: 0.035, stallMs: 1500...8000),
            // mobileHandover
            NetworkStateModel(
                lossPercent: 8...20, burstChance: 0.5, burstLossPercent: 10...40,
                burstSteps: 1...2, extraRttMs: 200...700, jitterMs: 50...140,
                capacityKbps: 150...500, disconnectChance: 0.03,
                stallChance: 0.09, stallMs: 2000...10000),
        ]
        /// Base (propagation) RTT of a fixed client; mobile clients add
        /// `mobileExtraRttMs`.
        public var baseRttMs: ClosedRange<Double> = 15...90
        public var mobileExtraRttMs: ClosedRange<Double> = 20...60
        /// Gaussian RTT noise, standard deviation as a share of the RTT.
        public var rttNoise: Double = 0.08
    }

    // MARK: - Quality feed

    public struct Quality: Sendable, Equatable {
        /// Nominal interval between quality reports (ms) = one Markov step.
        public var reportIntervalMs: Int = 2000
        /// Timing jitter of each report around its slot (± ms).
        public var reportJitterMs: Int = 80
        /// Delay of the first report after the connection starts.
        public var firstReportMs: ClosedRange<Int> = 1500...2400
        /// Cold reports per connection (RTT 0, placeholder MOS).
        public var coldReports: ClosedRange<Int> = 1...2
        /// Placeholder MOS style per client SDK: weights of `0`, `null`, `4.5`.
        public var placeholderWeights: [Double] = [0.5, 0.25, 0.25]
        /// Congestion control: bitrate right after (re)connecting, the
        /// multiplicative increase per step, the decrease on congestion, and
        /// the loss (percent) that counts as congestion.
        public var startBitrateKbps: ClosedRange<Double> = 150...400
        public var rampFactor: ClosedRange<Double> = 1.12...1.25
        public var backoffFactor: Double = 0.7
        public var backoffLossPercent: Double = 5
        /// Bitrate ceiling of a client (its camera/encoder setting).
        public var maxBitrateKbps: ClosedRange<Double> = 1200...2800
        /// MOS = E-model(loss, rtt, jitter) + gaussian * `mosNoise`,
        /// clamped to [1, `mosCap`]. E-model: ie, bpl as in Docs/tiers.md.
        public var mosNoise: Double = 0.08
        public var mosCap: Double = 4.5
        public var emodelIe: Double = 0
        public var emodelBpl: Double = 25.1
        /// The SDK's own tier: EWMA of its MOS (weight of the new value)
        /// and thresholds (excellent, good, fair, poor; below = bad).
        public var sdkTierAlpha: Double = 0.5
        public var sdkTierThresholds: [Double] = [4.0, 3.6, 3.1, 2.6]
        /// Delay of the tier event after the report that caused it.
        public var sdkTierDelayMs: ClosedRange<Int> = 5...300
        /// Share of clients whose SDK capitalises tier names ("Good").
        public var capitalizedTierShare: Double = 0.1
        /// Active speaker snapshots: a new snapshot every this many ms;
        /// weights of 0, 1, 2, 3 speakers.
        public var speakerChangeMs: ClosedRange<Int> = 1500...8000
        public var speakerCountWeights: [Double] = [0.2, 0.55, 0.2, 0.05]
    }

    // MARK: - Connectivity

    public struct Connectivity: Sendable, Equatable {
        /// Share of network drops that reconnect (else the client is gone).
        public var reconnectShare: Double = 0.85
        /// Time from the drop to `reconnect`.
        public var reconnectDelayMs: ClosedRange<Int> = 1500...20_000
        /// `error` strings of network drops.
        public var networkErrors: [String] = [
            "ice_connection_failed", "timeout", "socket_closed", "dtls_handshake_timeout",
        ]
        /// Chance per step that a connected app goes to the background
        /// (no quality, tier, speaker or stream status events meanwhile);
        /// mobile and fixed clients.
        public var backgroundChanceMobile: Double = 0.002
        public var backgroundChanceFixed: Double = 0.0002
        public var backgroundMs: ClosedRange<Int> = 12_000...120_000
        /// Delay with which meeting-wide events reach each client.
        public var deliveryDelayMs: ClosedRange<Int> = 10...400
    }

    // MARK: - Video and media

    public struct Video: Sendable, Equatable {
        /// Share of participants with the camera on at join.
        public var cameraOnShare: Double = 0.75
        /// Share of participants with the mic on at join.
        public var micOnShare: Double = 0.6
        /// Own camera / mic toggles per participant-hour.
        public var cameraTogglesPerHour: Double = 2
        public var micTogglesPerHour: Double = 8
        /// Host mutes (`byAdmin`, `opUid` = host) per meeting-hour.
        public var hostMutesPerHour: Double = 3
        /// From a track becoming available to `stream_subscribe`.
        public var subscribeDelayMs: ClosedRange<Int> = 100...900
        /// Time to first frame: usual, and the slow tail with its share.
        public var firstFrameMs: ClosedRange<Int> = 250...1800
        public var slowFirstFrameShare: Double = 0.06
        public var slowFirstFrameMs: ClosedRange<Int> = 3000...9000
        /// Share of subscriptions that never render (a `timedOut: true`
        /// may still come while loading).
        public var neverRenderedShare: Double = 0.03
        /// Chance per step that a published track freezes at the sender (its
        /// camera or encoder), stalling every subscriber rendering it at the
        /// time, whatever their networks (`SenderFreezes`); and its length.
        public var senderFreezeChance: Double = 0.0006
        public var senderFreezeMs: ClosedRange<Int> = 2000...12_000
        /// Meetings with a title change; with a screen share (1–2 shares),
        /// and a share's length.
        public var titleChangeShare: Double = 0.3
        public var screenShareShare: Double = 0.45
        public var screenShareMs: ClosedRange<Int> = 60_000...900_000
    }

    // MARK: - Log disorder (what real app loggers do)

    public struct Disorder: Sendable, Equatable {
        /// Share of lines written late by an async logger, and how late.
        public var reorderShare: Double = 0.01
        public var reorderMs: ClosedRange<Int> = 50...400
        /// Share of lines written twice (the copy up to `duplicateLagMs` later).
        public var duplicateShare: Double = 0.002
        public var duplicateLagMs: ClosedRange<Int> = 0...100
        /// Clients whose logger writes `ts` as RFC 3339 (`...Z`), and as
        /// RFC 3339 with a +01:00 offset; the rest write epoch milliseconds.
        public var rfc3339Share: Double = 0.08
        public var rfc3339OffsetShare: Double = 0.03
        /// Clients that put `ts` last instead of first.
        public var tsLastShare: Double = 0.2
        /// Clients that add extra envelope fields (`sdk`, `platform`, `seq`).
        public var extraFieldsShare: Double = 0.3
        /// Unknown SDK events (`audio_level`, `network_type_change`, ...) per
        /// client-minute.
        public var unknownEventsPerMinute: Double = 0.5
    }

    public var meetings = Meetings()
    public var network = Network()
    public var quality = Quality()
    public var connectivity = Connectivity()
    public var video = Video()
    public var disorder = Disorder()

    public init() {}

    /// The reference fleet: a quarter of the clients on mobile.
    public static let `default` = SimulationParameters()

    /// A mobile-heavy fleet: 70 % mobile clients, who background the app
    /// more often.
    public static let mobileHeavy: SimulationParameters = {
        var p = SimulationParameters()
        p.network.mobileShare = 0.7
        p.connectivity.backgroundChanceMobile = 0.003
        return p
    }()

    /// No log disorder at all (tests that compare against ground truth).
    public static let tidy: SimulationParameters = {
        var p = SimulationParameters()
        p.disorder.reorderShare = 0
        p.disorder.duplicateShare = 0
        p.disorder.unknownEventsPerMinute = 0
        return p
    }()

    /// Problems with the parameters (empty when they are usable).
    public func problems() -> [String] {
        var out: [String] = []
        func prob(_ name: String, _ v: Double) {
            if !(v >= 0 && v <= 1) { out.append("\(name) must be in [0, 1], is \(v)") }
        }
        func matrix(_ name: String, _ m: [[Double]]) {
            let n = NetworkState.allCases.count
            guard m.count == n, m.allSatisfy({ $0.count == n }) else {
                out.append("\(name) must be \(n)x\(n)"); return
            }
            for (i, row) in m.enumerated() {
                var sum = 0.0
                for v in row { sum += v; if v < 0 { out.append("\(name)[\(i)] has a negative entry") } }
                if abs(sum - 1) > 1e-9 { out.append("\(name)[\(i)] sums to \(sum), not 1") }
            }
        }
        if meetings.participants.lowerBound < 2 { out.append("meetings.participants must start at 2 or more") }
        if meetings.durationMinutes.lowerBound < 1 { out.append("meetings.durationMinutes must be positive") }
        if meetings.days < 1 { out.append("meetings.days must be positive") }
        prob("meetings.cdnShare", meetings.cdnShare)
        prob("network.mobileShare", network.mobileShare)
        matrix("network.fixedTransitions", network.fixedTransitions)
        matrix("network.mobileTransitions", network.mobileTransitions)
        if network.states.count != NetworkState.allCases.count {
            out.append("network.states must have one model per NetworkState")
        }
        if quality.reportIntervalMs < 200 { out.append("quality.reportIntervalMs must be >= 200") }
        if quality.reportJitterMs * 2 >= quality.reportIntervalMs {
            out.append("quality.reportJitterMs must be under half the interval")
        }
        if quality.placeholderWeights.count != 3 { out.append("quality.placeholderWeights needs 3 weights") }
        if quality.speakerCountWeights.count != 4 { out.append("quality.speakerCountWeights needs 4 weights") }
        if quality.sdkTierThresholds.count != 4 { out.append("quality.sdkTierThresholds needs 4 values") }
        if connectivity.networkErrors.isEmpty { out.append("connectivity.networkErrors is empty") }
        prob("connectivity.reconnectShare", connectivity.reconnectShare)
        prob("disorder.reorderShare", disorder.reorderShare)
        prob("disorder.duplicateShare", disorder.duplicateShare)
        return out
    }
}
