import Foundation

/// Writes one client's event log (the NDJSON format of `Docs/event-log.md`,
/// version 1.1) from the meeting SDK's delegate callbacks.
///
/// Every record call is cheap and never waits for I/O: it stamps the time,
/// copies its arguments into a fixed-size record and appends it to a bounded
/// buffer. A background thread formats whole lines and writes them, one
/// `write` per batch. When the buffer is full the event is dropped and
/// counted, and a `recorder_dropped` line with the count follows. Calls are
/// safe from any thread.
///
/// Files go to `directory` as `<meeting>__<uid>__<startTs>.ndjson` (see
/// `Docs/recorder.md`): complete files are the ones without the `.partial`
/// suffix, listed in `statistics.files` as they are finished.
public final class MeetingRecorder: @unchecked Sendable {
    /// Milliseconds since the Unix epoch; called on the recording thread.
    public typealias Clock = @Sendable () -> Int64

    /// The wall clock, in whole milliseconds.
    public static let systemClock: Clock = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Tuning knobs; the defaults suit a phone.
    public struct Configuration: Sendable {
        /// Events held between two writes (at least 2). Memory is twice this
        /// many small records (~100 bytes each) plus the strings they refer to.
        public var bufferCapacity = 4096
        /// A file is finished and the next begun before it would pass this
        /// size (for zstd, after the batch that passes it).
        public var maxFileBytes = 8 << 20
        /// How long the writer lets events gather at most (at least 1 ms); it
        /// also writes as soon as the buffer is half full. A crash loses at
        /// most this long.
        public var flushInterval: TimeInterval = 0.5
        /// The unit of the SDK's `loss` (see `LossUnit`).
        public var lossUnit = LossUnit.fraction
        /// Plain NDJSON by default.
        public var compression = RecorderCompression.none
        /// Tests only: replaces write(2).
        var writeOverride: WriteFunction?

        /// The defaults above.
        public init() {}
    }

    /// What the recorder has done so far.
    public struct Statistics: Sendable {
        /// Events taken into the buffer.
        public var accepted = 0
        /// Events not written: the buffer was full, or their write failed.
        public var dropped = 0
        /// Event lines written to files (not counting `recorder_dropped`).
        public var written = 0
        /// `recorder_dropped` lines written.
        public var dropLines = 0
        /// Complete files (synced, final name), oldest first: ready to upload.
        public var files: [String] = []
        /// The last I/O error, if any.
        public var lastError: String?
    }

    /// Why a recorder cannot start.
    public enum SetupError: Error, Equatable {
        /// `meeting` or `uid` is empty.
        case emptyIdentifier
        /// zstd was asked for where the library is not linked.
        case zstdUnavailable
        /// The folder for the files could not be created (path and reason).
        case cannotCreateDirectory(String)
    }

    private let clock: Clock
    private let buffer: RecordBuffer
    private let done = DispatchSemaphore(value: 0)
    private let stateLock = NSLock()
    private var published = Statistics()
    private var closed = false

    /// Starts recording for `uid` in `meeting`; files go to `directory`
    /// (created when missing). Ids longer than 256 characters are cut to
    /// 256, the format's limit.
    public init(
        directory: URL, meeting: String, uid: String, configuration: Configuration = Configuration(),
        clock: @escaping Clock = MeetingRecorder.systemClock
    ) throws {
        guard !meeting.isEmpty, !uid.isEmpty else { throw SetupError.emptyIdentifier }
        if case .zstd = configuration.compression, !RecorderCompression.zstdAvailable {
            throw SetupError.zstdUnavailable
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SetupError.cannotCreateDirectory("\(directory.path): \(error.localizedDescription)")
        }
        self.clock = clock
        // Out-of-range settings are raised to the smallest that work rather
        // than trapping in an app: a buffer needs room to swap, and a zero
        // interval would make the writer spin.
        buffer = RecordBuffer(capacity: max(2, configuration.bufferCapacity))
        let files = LogFiles(
            directory: directory.path, meeting: meeting, uid: uid, maxFileBytes: configuration.maxFileBytes,
            compression: configuration.compression)
        files.writeOverride = configuration.writeOverride
        let writer = Writer(
            buffer: buffer, files: files, formatter: LineFormatter(lossUnit: configuration.lossUnit), clock: clock,
            interval: max(0.001, configuration.flushInterval), done: done
        ) { [weak self] stats in self?.publish(stats) }
        let thread = Thread { writer.run() }
        thread.name = "MQARecorder writer"
        thread.qualityOfService = .utility
        thread.start()
    }

    deinit { close() }

    /// Writes what is buffered, syncs and finishes the current file, and
    /// stops the writer. Later calls record nothing. Blocks until the data
    /// is on disk: call it off the main thread (e.g. in a detached task
    /// after the meeting). Safe to call more than once.
    public func close() {
        stateLock.lock()
        let first = !closed
        closed = true
        stateLock.unlock()
        guard first else { return }
        buffer.close()
        done.wait()
    }

    /// A snapshot, updated after every write.
    public var statistics: Statistics {
        let counts = buffer.counts
        stateLock.lock()
        var s = published
        stateLock.unlock()
        s.accepted = counts.accepted
        s.dropped = counts.dropped
        return s
    }

    private func publish(_ s: Statistics) {
        stateLock.lock()
        published = s
        stateLock.unlock()
    }

    /// Tests only: stop the writer from taking records (until `false` or close).
    func suspendWriter(_ on: Bool) { buffer.setSuspended(on) }

    // MARK: Connection

    /// `meeting_join`: the local user entered the meeting. The client
    /// fields of format 1.2 are optional: the platform, OS version
    /// (`"17.4.1"`), meeting SDK version (`"5.3.0"`), the app's own version,
    /// the device model (`"iPhone15,2"`, `"Chrome 131"`) and the network at
    /// join. Each text is cut to 256 characters; an empty one is left out.
    public func meetingJoined(engine: MeetingEngine, title: String? = nil, platform: ClientPlatform? = nil,
                              osVersion: String? = nil, sdkVersion: String? = nil, appVersion: String? = nil,
                              device: String? = nil, netType: NetworkType? = nil) {
        let texts = [osVersion, sdkVersion, appVersion, device]
        let client = texts.contains { $0 != nil } ? texts.map { $0 ?? "" } : []
        buffer.append(Record(ts: clock(), event: .meetingJoin, code: engine.rawValue,
                            code2: platform.map { $0.rawValue + 1 } ?? 0, code3: netType.map { $0.rawValue + 1 } ?? 0,
                            flags: title == nil ? 0 : Record.hasOptional, s0: title ?? "", list: client))
    }

    /// `meeting_leave`: the local user left on its own.
    public func meetingLeft() { buffer.append(Record(ts: clock(), event: .meetingLeave)) }

    /// `disconnect`, from the SDK's `DisconnectEventData`: `reason` as the SDK
    /// names it (`"network"`, `"kicked"`, `"meeting_ended"`, …); `error` only
    /// when the disconnect was abnormal.
    public func disconnected(reason: String, error: String? = nil) {
        buffer.append(Record(ts: clock(), event: .disconnect, flags: error == nil ? 0 : Record.hasOptional, s0: reason, s1: error ?? ""))
    }

    /// `reconnect`: the connection is back after a disconnect.
    public func reconnected() { buffer.append(Record(ts: clock(), event: .reconnect)) }

    // MARK: Quality

    /// `quality_report`, from `didReceiveQualityReport`, in the SDK's units:
    /// `loss` as `Configuration.lossUnit` says (a 0–1 fraction by default,
    /// written as percent), `rtt` and `jitter` in ms, `bitrate` in kbps,
    /// `mos` 1–5 with 0 meaning "not available yet" (written as `null`).
    /// Out-of-range values are clamped (see `Docs/recorder.md`), never
    /// written as an invalid line.
    public func qualityReport(loss: Double, rtt: Double, jitter: Double, bitrate: Double, mos: Double) {
        buffer.append(Record(ts: clock(), event: .qualityReport, n0: loss, n1: rtt, n2: jitter, n3: bitrate, n4: mos))
    }

    /// `connection_quality_change`: the SDK's own tier, as it names it.
    public func connectionQualityChanged(tier: String) {
        buffer.append(Record(ts: clock(), event: .connectionQualityChange, s0: tier))
    }

    /// `active_speakers_change`: the full list, loudest first (`[]` for
    /// silence). At most 256 are written, each cut to 256 characters; an
    /// empty uid names no one and is left out.
    public func activeSpeakersChanged(_ speakers: [String]) {
        buffer.append(Record(ts: clock(), event: .activeSpeakersChange, list: speakers))
    }

    // MARK: Streams
    //
    // A publisher or target is a uid, cut to 256 characters like the
    // envelope's; an empty one names no one, so the call is ignored (the
    // log format would reject the line).

    /// `stream_subscribe`: the local user subscribed to a remote video track.
    public func streamSubscribed(publisher: String, track: String, kind: StreamKind) {
        guard !publisher.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .streamSubscribe, code: kind.rawValue, s0: publisher, s1: track))
    }

    /// `stream_unsubscribe`: that subscription ended.
    public func streamUnsubscribed(publisher: String, track: String) {
        guard !publisher.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .streamUnsubscribe, s0: publisher, s1: track))
    }

    /// `receive_stream_status` (`ReceiveStreamStatus`): `timedOut` true when
    /// the track stopped producing frames, false when frames (re)started.
    public func receiveStreamStatus(publisher: String, track: String, timedOut: Bool) {
        guard !publisher.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .receiveStreamStatus, flags: timedOut ? Record.flagA : 0, s0: publisher, s1: track))
    }

    // MARK: Members and room

    /// `user_enter`: a remote member entered.
    public func userEntered(_ target: String) {
        guard !target.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .userEnter, s0: target))
    }

    /// `user_leave`: a remote member left.
    public func userLeft(_ target: String) {
        guard !target.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .userLeave, s0: target))
    }

    /// `member_media_state`: a member's mic or camera went on or off;
    /// `opUid` is the host who did it, when it was done by an admin (an
    /// empty one is left out).
    public func memberMediaState(target: String, media: MemberMedia, on: Bool, byAdmin: Bool, opUid: String? = nil) {
        guard !target.isEmpty else { return }
        let flags = (on ? Record.flagA : 0) | (byAdmin ? Record.flagB : 0) | (opUid?.isEmpty ?? true ? 0 : Record.hasOptional)
        buffer.append(Record(ts: clock(), event: .memberMediaState, code: media.rawValue, flags: flags, s0: target, s1: opUid ?? ""))
    }

    /// `room_title_change`, from `roomTitleDidChange`.
    public func roomTitleChanged(to title: String, from previousTitle: String) {
        buffer.append(Record(ts: clock(), event: .roomTitleChange, s0: title, s1: previousTitle))
    }

    /// `room_share_start`, from `roomShareDidStart`.
    public func roomShareStarted(publisher: String) {
        guard !publisher.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .roomShareStart, s0: publisher))
    }

    /// `room_share_stop`.
    public func roomShareStopped(publisher: String) {
        guard !publisher.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .roomShareStop, s0: publisher))
    }

    // MARK: Context (format 1.1)

    /// `audio_route_change` (iOS): the new route (`"speaker"`, `"bluetooth"`,
    /// …) and the system's reason (`"newDeviceAvailable"`, …).
    public func audioRouteChanged(route: String, reason: String) {
        buffer.append(Record(ts: clock(), event: .audioRouteChange, s0: route, s1: reason))
    }

    /// `audio_interruption` (iOS). Call `.ended` once audio has recovered.
    public func audioInterruption(_ phase: AudioInterruptionPhase) {
        buffer.append(Record(ts: clock(), event: .audioInterruption, code: phase.rawValue))
    }

    /// `device_change`; may come before `meetingJoined`.
    public func deviceChanged(kind: DeviceKind, change: DeviceChange, device: String? = nil) {
        buffer.append(Record(ts: clock(), event: .deviceChange, code: kind.rawValue, code2: change.rawValue,
                            flags: device == nil ? 0 : Record.hasOptional, s0: device ?? ""))
    }

    /// `sub_meeting_move`: the app leaves the current meeting for `target`.
    /// The line is logged under the meeting being left; later events belong
    /// to `target` and go to a new file. An empty target names no meeting:
    /// the call is ignored.
    public func subMeetingMoved(to target: String, reason: String? = nil) {
        guard !target.isEmpty else { return }
        buffer.append(Record(ts: clock(), event: .subMeetingMove,
                            flags: reason == nil ? 0 : Record.hasOptional, s0: target, s1: reason ?? ""))
    }

    /// `user_handup`, from `UserHandupEventData`.
    public func userHandup(_ step: HandupStep) {
        buffer.append(Record(ts: clock(), event: .userHandup, code: step.rawValue))
    }

    /// `share_broadcast_start` (iOS full-screen sharing, sharer's side).
    public func shareBroadcastStarted() { buffer.append(Record(ts: clock(), event: .shareBroadcastStart)) }

    /// `share_broadcast_stop`.
    public func shareBroadcastStopped() { buffer.append(Record(ts: clock(), event: .shareBroadcastStop)) }

    // MARK: Client and network (format 1.2)

    /// `network_change`: the client's network changed mid-call; `detail` as
    /// the app sees it (`"wifi→cellular"`, `"5G"`), cut to 256
    /// characters, left out when empty.
    public func networkChanged(netType: NetworkType, detail: String? = nil) {
        let detail = detail ?? ""
        buffer.append(Record(ts: clock(), event: .networkChange, code: netType.rawValue,
                            flags: detail.isEmpty ? 0 : Record.hasOptional, s0: detail))
    }
}

/// The background side: takes batches, formats, writes. Owns the files, so
/// nothing here is shared with callers but the buffer.
private final class Writer: @unchecked Sendable {
    let buffer: RecordBuffer
    let files: LogFiles
    let formatter: LineFormatter
    let clock: MeetingRecorder.Clock
    let interval: TimeInterval
    let done: DispatchSemaphore
    let publish: (MeetingRecorder.Statistics) -> Void
    private var reportedDrops = 0

    init(
        buffer: RecordBuffer, files: LogFiles, formatter: LineFormatter, clock: @escaping MeetingRecorder.Clock,
        interval: TimeInterval, done: DispatchSemaphore, publish: @escaping (MeetingRecorder.Statistics) -> Void
    ) {
        self.buffer = buffer
        self.files = files
        self.formatter = formatter
        self.clock = clock
        self.interval = interval
        self.done = done
        self.publish = publish
    }

    func run() {
        var finalRounds = 0
        while true {
            let lostBefore = files.lostEvents
            let taken = buffer.take(waitingUpTo: interval) { records in
                for r in records {
                    add(r)
                    if r.event == .subMeetingMove {
                        // The move line ends the old meeting's file; what follows
                        // is the new meeting's.
                        files.finish()
                        files.meeting = r.s0
                    }
                }
            }
            if taken.dropped > 0 {
                reportedDrops += taken.dropped
                var r = Record(ts: clock(), event: .recorderDropped)
                r.n0 = Double(taken.dropped)
                r.n1 = Double(reportedDrops)
                add(r)
            }
            files.flush()
            let lost = files.lostEvents - lostBefore
            if lost > 0 { buffer.addDropped(lost) }
            if taken.closed {
                // One more round reports events a failed write lost; no more,
                // so a disk that keeps failing cannot keep us here.
                finalRounds += 1
                if lost == 0 || finalRounds > 1 {
                    files.finish()
                    publishStatistics()
                    done.signal()
                    return
                }
            }
            publishStatistics()
        }
    }

    private func add(_ r: Record) {
        let start = files.pending.count
        formatter.append(r, meeting: files.meeting, uid: files.uid, to: &files.pending)
        files.lineAdded(start: start, ts: r.ts, isEvent: r.event.isLogEvent)
    }

    private func publishStatistics() {
        var s = MeetingRecorder.Statistics()
        s.written = files.writtenEvents
        s.dropLines = files.writtenDropLines
        s.files = files.finished
        s.lastError = files.lastError
        publish(s)
    }
}
