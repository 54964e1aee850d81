import Foundation
import MQARecorder
import Testing
import MQABase
import MQAModel

// MARK: Stand-in for the meeting SDK

// The SDK cannot be fetched here, so these declarations copy the shapes of
// its delegate protocol and event types (names, argument labels, value
// types), nothing more. The adapter below is compiled against them exactly
// as Docs/recorder.md shows it; the test checks the two texts are the same.

enum SEngineType { case sfu, cdn }

enum SNetworkQuality: String { case excellent, good, poor, bad, unknown }

struct SQualityReport {
    var packetLoss: Double  // 0–1 fraction
    var rtt: Int  // ms
    var jitter: Int  // ms
    var bitrate: Int  // kbps
    var mos: Double  // 1–5, 0 = not available
}

struct DisconnectEventData {
    var reason: String
    var error: String?
}

struct SubscribeEventData {
    var uid: String
    var streamId: String
    var isScreen: Bool
}

struct ReceiveStreamStatus {
    var uid: String
    var streamId: String
    var timeout: Bool
}

struct MemberMediaStateEventData {
    enum MediaType { case audio, video }
    var uid: String
    var mediaType: MediaType
    var isOn: Bool
    var byAdmin: Bool
    var operatorUid: String?
}

struct AudioRouteEventData {
    var route: String
    var reason: String
}

enum AudioInterruptionEventData { case began, ended }

struct DeviceEventData {
    enum Kind { case camera, microphone, speaker }
    enum Change { case added, removed, defaultChanged }
    var kind: Kind
    var change: Change
    var name: String?
}

struct SubMeetingEventData {
    var targetMeetingId: String
    var reason: String?
}

struct UserHandupEventData {
    enum Step { case request, cancel, confirmOpen, rejectOpen }
    var uid: String
    var step: Step
}

/// The SDK calls these on the main thread.
protocol SMeetingDelegate: AnyObject {
    func meetingDidJoin(engine: SEngineType, title: String?)
    func meetingDidLeave()
    func didDisconnect(_ data: DisconnectEventData)
    func didReconnect()
    func didReceiveQualityReport(_ report: SQualityReport)
    func connectionQualityDidChange(_ quality: SNetworkQuality)
    func activeSpeakersDidChange(_ uids: [String])
    func didSubscribe(_ data: SubscribeEventData)
    func didUnsubscribe(_ data: SubscribeEventData)
    func receiveStreamStatusDidChange(_ status: ReceiveStreamStatus)
    func userDidEnter(_ uid: String)
    func userDidLeave(_ uid: String)
    func memberMediaStateDidChange(_ data: MemberMediaStateEventData)
    func roomTitleDidChange(_ title: String, previousTitle: String)
    func roomShareDidStart(_ uid: String)
    func roomShareDidStop(_ uid: String)
    func audioRouteDidChange(_ data: AudioRouteEventData)
    func audioInterruptionDidChange(_ data: AudioInterruptionEventData)
    func deviceDidChange(_ data: DeviceEventData)
    func subMeetingWillMove(_ data: SubMeetingEventData)
    func userHandupDidChange(_ data: UserHandupEventData)
    func shareBroadcastDidStart()
    func shareBroadcastDidStop()
}

// MARK: The adapter of Docs/recorder.md

// adapter:begin
/// Logs the meeting SDK's callbacks with an MQARecorder. The observer lives
/// on the main actor with the rest of the UI; the SDK calls its delegate on
/// the main thread, and every method here only hands values to the
/// recorder (which takes them without waiting), so the methods are
/// `nonisolated` and touch nothing but the recorder, a `Sendable` constant.
@MainActor
final class MeetingLogObserver: SMeetingDelegate {
    let recorder: MeetingRecorder
    /// What the app knows about itself, logged with every join (format
    /// 1.2): `.ios`, `UIDevice.current.systemVersion`, the SDK's and the
    /// app's versions, the device model.
    let client: ClientDescription
    /// The network now, from the app's own path monitor (see below).
    let currentNetwork: @Sendable () -> NetworkType?

    struct ClientDescription: Sendable {
        var platform: ClientPlatform
        var osVersion: String
        var sdkVersion: String
        var appVersion: String
        var device: String
    }

    init(recorder: MeetingRecorder, client: ClientDescription, currentNetwork: @escaping @Sendable () -> NetworkType?) {
        self.recorder = recorder
        self.client = client
        self.currentNetwork = currentNetwork
    }

    nonisolated func meetingDidJoin(engine: SEngineType, title: String?) {
        recorder.meetingJoined(
            engine: engine == .sfu ? .sfu : .cdn, title: title, platform: client.platform, osVersion: client.osVersion,
            sdkVersion: client.sdkVersion, appVersion: client.appVersion, device: client.device, netType: currentNetwork())
    }

    nonisolated func meetingDidLeave() {
        recorder.meetingLeft()
    }

    nonisolated func didDisconnect(_ data: DisconnectEventData) {
        recorder.disconnected(reason: data.reason, error: data.error)
    }

    nonisolated func didReconnect() {
        recorder.reconnected()
    }

    nonisolated func didReceiveQualityReport(_ report: SQualityReport) {
        // packetLoss is a 0–1 fraction: the recorder's default LossUnit.
        recorder.qualityReport(
            loss: report.packetLoss, rtt: Double(report.rtt), jitter: Double(report.jitter),
            bitrate: Double(report.bitrate), mos: report.mos)
    }

    nonisolated func connectionQualityDidChange(_ quality: SNetworkQuality) {
        recorder.connectionQualityChanged(tier: quality.rawValue)
    }

    nonisolated func activeSpeakersDidChange(_ uids: [String]) {
        recorder.activeSpeakersChanged(uids)
    }

    nonisolated func didSubscribe(_ data: SubscribeEventData) {
        recorder.streamSubscribed(publisher: data.uid, track: data.streamId, kind: data.isScreen ? .screen : .camera)
    }

    nonisolated func didUnsubscribe(_ data: SubscribeEventData) {
        recorder.streamUnsubscribed(publisher: data.uid, track: data.streamId)
    }

    nonisolated func receiveStreamStatusDidChange(_ status: ReceiveStreamStatus) {
        recorder.receiveStreamStatus(publisher: status.uid, track: status.streamId, timedOut: status.timeout)
    }

    nonisolated func userDidEnter(_ uid: String) {
        recorder.userEntered(uid)
    }

    nonisolated func userDidLeave(_ uid: String) {
        recorder.userLeft(uid)
    }

    nonisolated func memberMediaStateDidChange(_ data: MemberMediaStateEventData) {
        recorder.memberMediaState(
            target: data.uid, media: data.mediaType == .audio ? .mic : .camera, on: data.isOn,
            byAdmin: data.byAdmin, opUid: data.operatorUid)
    }

    nonisolated func roomTitleDidChange(_ title: String, previousTitle: String) {
        recorder.roomTitleChanged(to: title, from: previousTitle)
    }

    nonisolated func roomShareDidStart(_ uid: String) {
        recorder.roomShareStarted(publisher: uid)
    }

    nonisolated func roomShareDidStop(_ uid: String) {
        recorder.roomShareStopped(publisher: uid)
    }

    nonisolated func audioRouteDidChange(_ data: AudioRouteEventData) {
        recorder.audioRouteChanged(route: data.route, reason: data.reason)
    }

    nonisolated func audioInterruptionDidChange(_ data: AudioInterruptionEventData) {
        recorder.audioInterruption(data == .began ? .began : .ended)
    }

    nonisolated func deviceDidChange(_ data: DeviceEventData) {
        let kind: DeviceKind
        switch data.kind {
        case .camera: kind = .camera
        case .microphone: kind = .mic
        case .speaker: kind = .speaker
        }
        let change: DeviceChange
        switch data.change {
        case .added: change = .added
        case .removed: change = .removed
        case .defaultChanged: change = .default
        }
        recorder.deviceChanged(kind: kind, change: change, device: data.name)
    }

    nonisolated func subMeetingWillMove(_ data: SubMeetingEventData) {
        recorder.subMeetingMoved(to: data.targetMeetingId, reason: data.reason)
    }

    nonisolated func userHandupDidChange(_ data: UserHandupEventData) {
        let step: HandupStep
        switch data.step {
        case .request: step = .request
        case .cancel: step = .cancel
        case .confirmOpen: step = .confirmOpen
        case .rejectOpen: step = .rejectOpen
        }
        recorder.userHandup(step)
    }

    nonisolated func shareBroadcastDidStart() {
        recorder.shareBroadcastStarted()
    }

    nonisolated func shareBroadcastDidStop() {
        recorder.shareBroadcastStopped()
    }
}
// adapter:end

@Suite struct AdapterTests {
    /// Every SDK callback, delivered on the main actor as the SDK would,
    /// comes out as its event, once, valid.
    @Test @MainActor func everyCallbackBecomesItsEvent() throws {
        let dir = TempDir()
        let r = try recorder(dir, meeting: "m-42", uid: "alice")
        let client = MeetingLogObserver.ClientDescription(
            platform: .ios, osVersion: "17.4.1", sdkVersion: "5.3.0", appVersion: "2026.11.2", device: "iPhone15,2")
        let observer = MeetingLogObserver(recorder: r, client: client, currentNetwork: { .wifi })
        let sdk: SMeetingDelegate = observer
        sdk.deviceDidChange(DeviceEventData(kind: .microphone, change: .added, name: "AirPods"))
        sdk.meetingDidJoin(engine: .sfu, title: "Weekly sync")
        // Not an SDK callback: the app's path monitor logs it (Docs/recorder.md).
        r.networkChanged(netType: .cellular, detail: "wifi→cellular")
        sdk.didReceiveQualityReport(SQualityReport(packetLoss: 0.075, rtt: 210, jitter: 38, bitrate: 640, mos: 3.02))
        sdk.connectionQualityDidChange(.poor)
        sdk.activeSpeakersDidChange(["bob", "alice"])
        sdk.didSubscribe(SubscribeEventData(uid: "bob", streamId: "bob-cam", isScreen: false))
        sdk.receiveStreamStatusDidChange(ReceiveStreamStatus(uid: "bob", streamId: "bob-cam", timeout: true))
        sdk.didUnsubscribe(SubscribeEventData(uid: "bob", streamId: "bob-cam", isScreen: false))
        sdk.userDidEnter("carol")
        sdk.userDidLeave("carol")
        sdk.memberMediaStateDidChange(
            MemberMediaStateEventData(uid: "bob", mediaType: .audio, isOn: false, byAdmin: true, operatorUid: "host"))
        sdk.roomTitleDidChange("New", previousTitle: "Old")
        sdk.roomShareDidStart("bob")
        sdk.roomShareDidStop("bob")
        sdk.audioRouteDidChange(AudioRouteEventData(route: "bluetooth", reason: "newDeviceAvailable"))
        sdk.audioInterruptionDidChange(.began)
        sdk.userHandupDidChange(UserHandupEventData(uid: "alice", step: .confirmOpen))
        sdk.shareBroadcastDidStart()
        sdk.shareBroadcastDidStop()
        sdk.didDisconnect(DisconnectEventData(reason: "network", error: "timeout"))
        sdk.didReconnect()
        sdk.subMeetingWillMove(SubMeetingEventData(targetMeetingId: "m-42-breakout", reason: nil))
        sdk.meetingDidLeave()
        r.close()
        let all = lines(in: dir)
        let events = all.map(\.event)
        #expect(Set(events) == Set(RecorderEvent.allCases.filter(\.isLogEvent).map(\.name)))
        #expect(events.count == 24)
        #expect(all.first { $0.event == "meeting_join" }?.text.hasSuffix(
            #""title":"Weekly sync","platform":"ios","osVersion":"17.4.1","sdkVersion":"5.3.0","appVersion":"2026.11.2","device":"iPhone15,2","netType":"wifi"}"#) == true)
        #expect(all.first { $0.event == "quality_report" }?.text.contains(#""loss":7.5,"rtt":210"#) == true)
        #expect(all.first { $0.event == "meeting_leave" }?.json["meeting"] as? String == "m-42-breakout")
    }

    /// Docs/recorder.md shows this very adapter, character for character.
    @Test func theDocsShowTheCompiledAdapter() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let begin = try #require(source.range(of: "// adapter:begin\n"))
        let end = try #require(source.range(of: "// adapter:end"))
        let adapter = String(source[begin.upperBound..<end.lowerBound])
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("Docs/recorder.md"), encoding: .utf8)
        #expect(docs.contains("```swift\nimport MQARecorder\n\n" + adapter + "```\n"))
    }
}
