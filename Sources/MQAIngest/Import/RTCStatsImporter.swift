import Foundation
import MQABase
import MQAModel
import MQAStore

/// Reads an rtcstats dump: one JSON array `[method, pcId, value, ts]` per
/// line; `getstats` lines are delta-compressed samples per connection.
struct RTCStatsImporter {
    let context: ImportContext
    private let scanner = JSONWalker()

    init(context: ImportContext) { self.context = context }

    /// A report as a `getstats` line gives it: its type when given, and the
    /// properties it carries (a null value clears one).
    struct Delta {
        var id: String
        var type: String?
        var changes: [(StatsProperty, StatsValue?)]
    }

    struct Connection {
        var converter: ConnectionConverter
        var meta = ConnectionMeta()
        var reports: [String: StatsReport] = [:]
        /// The time of the last sample fed.
        var lastFed: Int64?

        /// Feeds the sample, in time order as the spec reads them ("sample
        /// by sample in time order"), or refuses it when it is not later
        /// than the last one fed (false): a repeated line made an interval
        /// of 0 ms in which nothing flowed (a pause and a new first frame),
        /// and an earlier one read as counters going back (a restart, the
        /// whole call's loss in one interval). Its deltas are applied all
        /// the same (the next line's are relative to them), and the counters
        /// are cumulative, so the next interval holds what it measured.
        /// Holding samples back to sort them would cost a copy of every
        /// report per sample held, per connection.
        mutating func take(_ sample: StatsSample) -> Bool {
            if let last = lastFed, sample.ts <= last { return false }
            lastFed = sample.ts
            converter.feed(sample)
            return true
        }
    }

    /// A line that is not a sample but says something of the call.
    struct MetaLine {
        var method: String
        var pcID: String?
        var ts: Int64?
        /// The value when it is a string (a state, an `ontrack` text).
        var text: String?
        /// The value when it is an object (or a string holding one).
        var object: [String: Any]?
        /// The page's address, where the line names it (format 3's `create`).
        var pageURL: String? = nil
        /// The value when it is an array (format 3's `ontrack`).
        var array: [Any]? = nil
    }

    /// Methods whose lines say who, where, and what became of a connection.
    static let metaMethods: Set<String> = [
        "connectionInfo", "identity", "constraints", "create", "createDataChannel", "ondatachannel", "close",
        "onconnectionstatechange", "oniceconnectionstatechange", "ontrack", "transceiverAdded", "transceiverModified",
        "addTrack", "addStream", "addTransceiver", "onaddstream", "setRemoteDescription",
        "setLocalDescription", "setLocalDescriptionOnSuccess",
    ]

    /// What a dump read so far has given: its connections and their
    /// samples, who it is, and the rejected lines. Fed line by line
    /// (`take`), so that a dump is converted as it is read, never held
    /// whole: memory is what the conversion keeps, not the file's size.
    struct Progress {
        var conversion = Conversion(format: .rtcstats)
        var connections: [String: Connection] = [:]
        var order: [String] = []
        var identity = DumpIdentity()
        var arrays = 0
        var objects = 0
        /// Object lines with rtcstats-server's `statsSessionId`: a server's dump.
        var serverLines = 0
        /// Event-log lines (`WebRTCImport.TopLevelKeys.eventLine`) among
        /// the arrays: rejected, each, since they are no part of a dump.
        var eventLines = 0
        /// Rejected lines that open as a JSON array (`["`, `[1`): a damaged dump's
        /// lines, which make the file a dump with bad lines, where a file
        /// of other text (an error page saved as the dump) is no dump.
        var brokenArrays = 0
        var lineNumber = 0
        /// Whether a non-blank line came before (format 3's first line is its header).
        var sawContent = false
        /// File format 3 (`RTCStatsDump`, then `{"fileFormat":3}`), as
        /// Chrome's webrtc-internals page writes it: each line's last
        /// element is its time, the first absolute, the rest the ms since
        /// the line before.
        var format3 = false
        /// Format 3's second line, the `{"fileFormat":…}` object, is next.
        var awaitingFormatLine = false
        /// Format 3's running line time.
        var clock: Fixed?
        /// The line whose time the clock last took.
        var lastTimedLine = 0

        mutating func connection(_ pcID: String) {
            if connections[pcID] == nil {
                connections[pcID] = Connection(converter: ConnectionConverter(connection: pcID))
                order.append(pcID)
            }
        }
    }

    /// Converts a dump held whole (the tests' way in; an ingest feeds the
    /// lines as it reads them).
    func convert(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Conversion {
        var progress = Progress()
        var start = 0
        let n = bytes.count
        while start < n {
            var end = start
            while end < n && bytes[end] != 0x0A { end += 1 }
            try take(UnsafeBufferPointer(rebasing: bytes[start..<end]), into: &progress)
            start = end + 1
        }
        return try finish(&progress)
    }

    /// Reads the dump's next line (without its `\n`).
    /// - Throws: `ImportError` when the file turns out not to be readable
    ///   as this format (rtcstats format 3).
    func take(_ whole: UnsafeBufferPointer<UInt8>, into p: inout Progress) throws {
        p.lineNumber += 1
        var stop = whole.count
        if stop > 0 && whole[stop - 1] == 0x0D { stop -= 1 }
        var from = 0
        if p.lineNumber == 1 && stop - from >= 3 && whole[0] == 0xEF && whole[1] == 0xBB && whole[2] == 0xBF { from = 3 }
        let line = UnsafeBufferPointer(rebasing: whole[from..<stop])
        if WebRTCImport.isBlank(line) { return }
        defer { p.sawContent = true }
        if !p.sawContent && line.elementsEqual(WebRTCImport.rtcstatsFormat3) {
            p.format3 = true
            p.awaitingFormatLine = true
            return
        }
        if p.awaitingFormatLine {
            p.awaitingFormatLine = false
            let version = RTCStatsImporter.object(line)?["fileFormat"] as? Int
            guard version == 3 else {
                throw ImportError("rtcstats dump (first line RTCStatsDump) of file format \(version.map(String.init) ?? "unknown"): not read by this version, which reads format 3 as Chrome's webrtc-internals page writes it and the [method, pcId, value, ts] lines of earlier rtcstats")
            }
            return
        }
        do {
            let before = p.clock
            defer { if p.clock != before { p.lastTimedLine = p.lineNumber } }
            switch try parse(line, format3: p.format3, firstArray: p.arrays == 0 && p.conversion.rejects.isEmpty, clock: &p.clock) {
            case .object:
                let keys = WebRTCImport.topLevelKeys(of: line, from: 0)
                // An event line in a file the vote took for a dump (more
                // arrays than objects): `event` with the envelope, or all of
                // it but one field, is a log line written into the wrong
                // file, rejected where it can be seen; other objects,
                // whatever their keys, are metadata.
                if keys.eventLine && !keys.statsSession {
                    p.eventLines += 1
                    throw LineReject(reason: "an event-log line (event with ts, meeting, uid) in a file read as an rtcstats dump (most of its lines are [method, pcId, value, ts] arrays): event lines belong in a file of their own; if this file is an event log, name its format with --input-format events")
                }
                p.objects += 1
                if keys.statsSession { p.serverLines += 1 }
            case .other(let pcID):
                p.arrays += 1
                if let pcID { p.connection(pcID) }
            case .meta(let m):
                p.arrays += 1
                if let pcID = m.pcID { p.connection(pcID) }
                note(m, &p.identity, &p.connections)
            case .sample(let pcID, let sample):
                feed(sample, of: pcID, line: line, into: &p)
            }
        } catch let error as ImportError {
            throw error
        } catch {
            reject(line, for: error, into: &p)
        }
    }

    /// A getstats sample: its deltas applied to the connection's reports,
    /// then fed to its converter; one the converter cannot take (a
    /// second sample at one time, or an earlier one) is a reject.
    private func feed(_ sample: Sample, of pcID: String, line: UnsafeBufferPointer<UInt8>, into p: inout Progress) {
        p.arrays += 1
        p.connection(pcID)
        var c = p.connections[pcID]!
        p.connections[pcID] = nil  // unique, so the state is changed in place
        var next: [(id: String, report: StatsReport)] = []
        next.reserveCapacity(sample.deltas.count)
        var reports: [String: StatsReport] = [:]
        reports.reserveCapacity(sample.deltas.count)
        for delta in sample.deltas {
            // A known id carries what changed; a new (or returning) one the
            // whole report. The last sample's report is taken out of its
            // map, so that it is changed in place, not copied. An id twice
            // in one sample (no browser writes that) merges its changes.
            let earlier = reports.removeValue(forKey: delta.id)
            let again = earlier != nil
            var report = earlier ?? c.reports.removeValue(forKey: delta.id) ?? StatsReport(type: delta.type ?? "")
            if let type = delta.type { report.type = type }
            for (property, value) in delta.changes { report[property] = value }
            if again, let k = next.lastIndex(where: { $0.id == delta.id }) {
                next[k].report = report
            } else {
                next.append((delta.id, report))
            }
            reports[delta.id] = report
        }
        c.reports = reports
        let last = c.lastFed
        let taken = c.take(StatsSample(ts: sample.ts, statsTime: sample.statsTime, reports: next))
        p.connections[pcID] = c
        if !taken, let last {
            let what = sample.ts == last ? "a second getstats sample of \(pcID) at \(sample.ts)"
                : "a getstats sample of \(pcID) at \(sample.ts), earlier than the one before it (\(last))"
            p.conversion.rejects.append(ImportReject(
                line: p.lineNumber, reason: "\(what): left out (its counters are in the next sample's interval)",
                raw: WebRTCImport.rawBytes(line), size: line.count))
        }
    }

    /// A line that cannot be used: stored as a reject with its reason.
    private func reject(_ line: UnsafeBufferPointer<UInt8>, for error: any Error, into p: inout Progress) {
        var reason = (error as? LineReject)?.reason ?? "\(error)"
        // Format 3's later times count from this line's: a line that
        // fails before its time was read still gives it when it ends
        // in one, else the times after it are early by its delta.
        if p.format3, p.clock != nil, p.lastTimedLine != p.lineNumber {
            if let delta = trailingNumber(line) {
                p.clock = p.clock.map { $0 + delta }
            } else {
                reason += " (its time is lost too: the times of the lines after it may be early)"
            }
        }
        if RTCStatsImporter.looksLikeDumpLine(line, scanner) { p.brokenArrays += 1 }
        p.conversion.rejects.append(ImportReject(line: p.lineNumber, reason: reason, raw: WebRTCImport.rawBytes(line), size: line.count))
    }

    /// Whether a rejected line is a dump's own: a whole JSON array (`[1]`,
    /// `[{…}]`: the wrong form, but arrays), or one that opens with a
    /// method name (`["getstats", …` cut off). An error page's lines, its
    /// `[error] 502` or `[2026-12-06 10:00:01] upstream timed out`, are not.
    static func looksLikeDumpLine(_ line: UnsafeBufferPointer<UInt8>, _ scanner: JSONWalker) -> Bool {
        if opensWithMethodName(line, scanner) { return true }
        var p = 0
        scanner.skipSpace(line, &p)
        guard p < line.count, line[p] == UInt8(ascii: "[") else { return false }
        var r = p
        guard (try? scanner.skipValue(line, &r, depth: 0)) != nil else { return false }
        scanner.skipSpace(line, &r)
        return r == line.count
    }

    /// Whether a line opens as every rtcstats line does, with `[` and a
    /// method name (`["getstats", …`), whole or cut off. Only such lines
    /// vote for a dump when a file's format is told from its first lines:
    /// an event log's stray `[1,2]` lines are its own bad lines, and read
    /// as a dump they took its good lines with them.
    static func opensWithMethodName(_ line: UnsafeBufferPointer<UInt8>, _ scanner: JSONWalker) -> Bool {
        methodNameQuote(line, scanner) != nil
    }

    /// Where the opening quote of a line's first element stands when the
    /// line opens as `[` and a string (spaces allowed), else nil.
    private static func methodNameQuote(_ line: UnsafeBufferPointer<UInt8>, _ scanner: JSONWalker) -> Int? {
        var p = 0
        scanner.skipSpace(line, &p)
        guard p < line.count, line[p] == UInt8(ascii: "[") else { return nil }
        p += 1
        scanner.skipSpace(line, &p)
        return p < line.count && line[p] == UInt8(ascii: "\"") ? p : nil
    }

    /// Whether a line opens with a method an rtcstats client writes
    /// (`["getstats"`, `["create"`, `["setRemoteDescription"`, …), whole
    /// or cut off: what a line cut by the 64 KiB read to tell a format can
    /// still say (an app's `["debug", …` line says nothing).
    static func opensWithDumpMethod(_ line: UnsafeBufferPointer<UInt8>, _ scanner: JSONWalker) -> Bool {
        guard let quote = methodNameQuote(line, scanner) else { return false }
        let start = quote + 1
        guard let end = line[start..<min(line.count, start + 64)].firstIndex(of: UInt8(ascii: "\"")) else { return false }
        let name = String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        return dumpMethods.contains(name)
    }

    /// Methods rtcstats clients write, besides the meta methods read.
    static let dumpMethods: Set<String> = metaMethods.union([
        "getstats", "getStats", "createOffer", "createOfferOnSuccess", "createAnswer", "createAnswerOnSuccess",
        "setRemoteDescriptionOnSuccess", "onicecandidate", "addIceCandidate", "addIceCandidateOnSuccess",
        "onnegotiationneeded", "onsignalingstatechange", "onicegatheringstatechange", "getUserMedia",
        "getUserMediaOnSuccess", "navigator.mediaDevices.getUserMedia", "navigator.mediaDevices.getUserMediaOnSuccess",
        "navigator.mediaDevices.getDisplayMedia", "navigator.mediaDevices.getDisplayMediaOnSuccess",
    ])

    /// The number a line ends with (`…, 1000.5]`), if it does.
    private func trailingNumber(_ line: UnsafeBufferPointer<UInt8>) -> Fixed? {
        var end = line.count
        while end > 0, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        guard end > 0, line[end - 1] == UInt8(ascii: "]") else { return nil }
        end -= 1
        var start = end
        while start > 0, line[start - 1] != UInt8(ascii: ",") && line[start - 1] != UInt8(ascii: "[") { start -= 1 }
        let token = UnsafeBufferPointer(rebasing: line[start..<end])
        var q = 0
        scanner.skipSpace(token, &q)
        guard q < token.count, case .number(let d)? = try? scanner.scanScalar(token, &q, depth: 1) else { return nil }
        scanner.skipSpace(token, &q)
        return q == token.count ? Fixed(d) : nil
    }

    /// The dump's events, once every line has been taken.
    /// - Throws: `ImportError` when it is not an rtcstats dump at all.
    func finish(_ p: inout Progress) throws -> Conversion {
        // A file without a single array line, whole or damaged, is not an
        // rtcstats dump (a wrongly forced format, an error page saved as
        // the dump, must not mark the content as ingested). A server's own
        // dump (every object line an rtcstats-server line) is rtcstats that
        // carries no client's stats: read, and said so.
        guard p.arrays > 0 || p.brokenArrays > 0 || (p.serverLines > 0 && p.serverLines == p.objects) else {
            if p.objects + p.eventLines > 0 { throw ImportError("only JSON object lines, no rtcstats [method, pcId, value, ts] lines") }
            throw ImportError("no rtcstats lines ([method, pcId, value, ts] arrays)")
        }
        var results: [ConnectionResult] = []
        for id in p.order {
            var c = p.connections.removeValue(forKey: id)!
            c.converter.finish(states: c.meta.states)
            c.meta.dropStatesAfterFarEndClosed(c.converter.farEndClosedAt)
            results.append(ConnectionResult(converter: c.converter, meta: c.meta, emptyReason: "no getstats samples"))
        }
        var conversion = p.conversion
        p.conversion = Conversion(format: .rtcstats)
        try context.finish(results, identity: p.identity, into: &conversion)
        if p.order.isEmpty && p.objects > 0 {
            let what = p.serverLines == p.objects
                ? "a server-side dump (rtcstats-server lines with statsSessionId, as a bridge writes)"
                : "JSON object lines"
            conversion.skipped.append(SkippedConnection(
                file: context.file, connection: "", reason: "\(what): \(p.objects) object lines carry no client's getstats samples"))
        }
        return conversion
    }

    /// Takes in what a non-sample line says.
    private func note(_ m: MetaLine, _ identity: inout DumpIdentity, _ connections: inout [String: Connection]) {
        func string(_ key: String) -> String? { m.object?[key] as? String }
        switch m.method {
        case "connectionInfo":
            identity.note(url: string("url"))
            identity.note(userAgent: string("userAgent"))
            return
        case "create" where m.pcID == nil:
            // Format 3's first line: the browser, as `navigator.userAgentData`.
            if identity.userAgentData == nil, let data = m.object?["userAgentData"] as? [String: Any] {
                identity.userAgentData = UserAgentClient(userAgentData: data)
            }
            return
        case "identity":
            identity.note(confName: string("confName"), userID: string("userId"), displayName: string("displayName"), endpointID: string("endpointId"))
            return
        default: break
        }
        // Taken out while changed, so that its state log (one entry per
        // state line) grows in place: a copy per line made a dump with
        // 15,000 drops quadratic (40 % of its 5 s in copying the log).
        guard let pcID = m.pcID, var c = connections.removeValue(forKey: pcID) else { return }
        switch m.method {
        case "constraints":
            c.meta.mediaSetUp = true
            for case let item as [String: Any] in (m.object?["optional"] as? [Any]) ?? [] {
                if let flag = item["rtcStatsSFUP2P"] as? Bool { c.meta.p2p = flag }
            }
        case "create":
            c.meta.createdAt = c.meta.createdAt ?? m.ts
            if let url = m.pageURL { identity.note(url: url) }
            let servers = (m.object?["iceServers"] as? [Any]) ?? []
            var urls: [String] = []
            for case let server as [String: Any] in servers {
                if let u = server["urls"] as? String { urls.append(u) }
                if let us = server["urls"] as? [Any] { urls += us.compactMap { $0 as? String } }
                if let u = server["url"] as? String { urls.append(u) }
            }
            c.meta.stunOnly = !urls.isEmpty && urls.allSatisfy { $0.hasPrefix("stun:") || $0.hasPrefix("stuns:") }
        case "createDataChannel", "ondatachannel":
            c.meta.dataChannel = true
        case "setRemoteDescription":
            // The last one that holds a description (a rollback has none).
            if let text = m.text, text.contains("v=0") {
                c.meta.remoteDescriptionText = text
                c.meta.noteRemoteDescription(text)
            }
        case _ where ConnectionMeta.setsLocalDescription(m.method):
            // Not a sign of media by itself: a STUN probe sets one too.
            if let text = m.text, text.contains("v=0") { c.meta.noteLocalDescription(text) }
        case "close":
            c.meta.closedAt = c.meta.closedAt ?? m.ts
        case "onconnectionstatechange", "oniceconnectionstatechange":
            // Chrome's format 3 writes the state as JSON text: "\"failed\"".
            if let state = m.text?.trimmingQuotes {
                let change = ConnectionMeta.StateChange(ts: m.ts, state: state, ice: m.method == "oniceconnectionstatechange")
                c.meta.states.append(change)
                // The log comes in time order with the samples: a return is
                // known before the samples after it are fed.
                if let back = c.meta.down.note(change) { c.converter.returns.append(back) }
            }
        case "ontrack":
            c.meta.mediaSetUp = true
            // "video:<track id> stream:<stream id>", or in Chrome's format 3
            // [kind, track id, label, stream id, …].
            let named: (String, String)?
            if let a = m.array, a.count >= 4, let track = a[1] as? String, let stream = a[3] as? String, !track.isEmpty, !stream.isEmpty {
                named = (track, stream)
            } else {
                named = m.text.flatMap(RTCStatsImporter.trackAndStream)
            }
            if let (track, stream) = named, let publisher = RTCStatsImporter.publisher(stream: stream) {
                c.converter.publishers[track] = publisher
            }
        case "transceiverAdded", "transceiverModified":
            c.meta.mediaSetUp = true
            // Chrome's format 3 writes the page's transceiver entries (and,
            // from Chrome 144 at least, no `ontrack`): the receiver's track
            // and the stream it came in name the sender, as they do in the
            // same browser's webrtc-internals dump.
            if let (track, stream) = m.object.flatMap(WebRTCInternalsImporter.receiverTrackAndStream),
               let publisher = RTCStatsImporter.publisher(stream: stream) {
                c.converter.publishers[track] = publisher
            }
        default:
            c.meta.mediaSetUp = true
        }
        connections[pcID] = c
    }

    /// The track and stream ids of an `ontrack` text.
    static func trackAndStream(_ text: String) -> (String, String)? {
        var track: String?
        var stream: String?
        for part in text.split(separator: " ") {
            if part.hasPrefix("stream:") { stream = String(part.dropFirst(7)) }
            else if let colon = part.firstIndex(of: ":"), part[..<colon] == "video" || part[..<colon] == "audio" {
                track = String(part[part.index(after: colon)...])
            }
        }
        guard let track, let stream, !track.isEmpty, !stream.isEmpty else { return nil }
        return (track, stream)
    }

    /// The remote participant a stream id names: Jitsi's
    /// `<endpoint>-video-<n>[-<m>]` gives the endpoint; another real
    /// stream id stands for its sender itself; placeholders name nobody.
    static func publisher(stream: String) -> String? {
        if stream == "mixedmslabel" || stream == "default" || stream == "-" { return nil }
        for kind in ["-video-", "-audio-"] {
            if let r = stream.range(of: kind, options: .backwards), r.lowerBound > stream.startIndex {
                let endpoint = String(stream[..<r.lowerBound])
                let tail = stream[r.upperBound...]
                if tail.allSatisfy({ $0.isNumber || $0 == "-" }), DumpIdentity.fits(endpoint) { return endpoint }
            }
        }
        return DumpIdentity.fits(stream) ? stream : nil
    }

    struct LineReject: Error { var reason: String }

    /// `__ping__`, the keepalive line rtcstats-server's older dumps hold,
    /// blanks around it allowed.
    static func isKeepalive(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let word = Array("__ping__".utf8)
        var lo = 0, hi = line.count
        while lo < hi, line[lo] <= 0x20 { lo += 1 }
        while hi > lo, line[hi - 1] <= 0x20 { hi -= 1 }
        return hi - lo == word.count && zip(line[lo..<hi], word).allSatisfy { $0 == $1 }
    }

    struct Sample {
        var ts: Int64
        var statsTime: Fixed
        var deltas: [Delta]
    }

    enum Line {
        /// A JSON object line (server-side dumps): no events.
        case object
        /// An array line of another method.
        case other(pcID: String?)
        case meta(MetaLine)
        case sample(String, Sample)
    }

    /// - format3: the line time is the last element: the first line's
    ///   absolute, each later one's the ms since the line before, summed
    ///   into `clock`.
    ///   A first line whose method is a number is rtcstats.com's variant
    ///   (`firstArray`): refused whole. Later, it is one bad line.
    private func parse(_ line: UnsafeBufferPointer<UInt8>, format3: Bool = false, firstArray: Bool = false, clock: inout Fixed?) throws -> Line {
        var p = 0
        scanner.skipSpace(line, &p)
        do {
            if line[p] == UInt8(ascii: "{") {
                try scanner.skipValue(line, &p, depth: 0)
                scanner.skipSpace(line, &p)
                guard p == line.count else { throw SyntaxError(message: "not valid JSON: unexpected text after the object", column: p + 1) }
                return .object
            }
            guard line[p] == UInt8(ascii: "[") else {
                // rtcstats-server wrote its websocket's keepalives into the
                // dump between the samples: still a line that is not JSON
                // (webrtc-import.md: a reject), but said as what it is.
                if RTCStatsImporter.isKeepalive(line) {
                    throw LineReject(reason: "rtcstats-server's keepalive (__ping__), not a stats line: no sample is in it")
                }
                var q = p
                try scanner.skipValue(line, &q, depth: 0)
                throw LineReject(reason: "not a JSON array")
            }
            var e = try elements(line, &p, format3: format3, firstArray: firstArray)
            if format3, e.last.index >= 3, let delta = e.last.time {
                if clock == nil, delta.roundedHalfUp < LineParser.earliestTs {
                    // Every later time is counted from this one.
                    throw ImportError("rtcstats file format 3 whose first timed line has no absolute time (\(delta.roundedHalfUp) is no epoch ms): every later line's time is counted from it, so none can be placed")
                }
                clock = clock.map { $0 + delta } ?? delta
                e.lineTime = clock
            }
            scanner.skipSpace(line, &p)
            guard p == line.count else { throw SyntaxError(message: "not valid JSON: unexpected text after the array", column: p + 1) }
            guard e.method == "getstats" || e.method == "getStats" else {
                // `[1,2]` or `[{…}]` (events wrapped in an array) is no
                // rtcstats line: a reject, not a line of a method not read.
                guard let method = e.method else {
                    throw LineReject(reason: "not an rtcstats line: its first element is not a method name ([method, pcId, value, ts])")
                }
                guard RTCStatsImporter.metaMethods.contains(method) else {
                    // Chrome's format 3 tags a getUserMedia call with the
                    // page's id in the connection's place: no connection.
                    return .other(pcID: method.hasPrefix("navigator.") ? nil : e.pcID)
                }
                let ts = e.lineTime.map(\.roundedHalfUp).flatMap { context.isSampleTime($0) ? $0 : nil }
                return .meta(metaLine(line, method: method, pcID: e.pcID, ts: ts, value: e.metaValue, text: e.metaText, pageURL: e.pageURL))
            }
            if let problem = e.problem { throw LineReject(reason: problem) }
            guard var sample = e.sample else { throw LineReject(reason: "getstats without an object") }
            guard let pcID = e.pcID else { throw LineReject(reason: "getstats without a peer connection id (2nd element)") }
            guard let time = e.lineTime ?? e.statsTime else { throw LineReject(reason: "getstats without a usable time (ts and timestamp missing or out of range)") }
            let ts = time.roundedHalfUp
            // A sample far in the future would be the clock every later
            // sample is held to (each must come after the one before). A
            // time past Int64 is said as such, not as the clamped number.
            guard context.isSampleTime(ts) else {
                let said = ts == .max ? "beyond 9223372036854775807" : ts == .min ? "below -9223372036854775808" : "\(ts)"
                throw LineReject(reason: "getstats: time \(said) out of range (before 2000-01-01 or more than a day in the future)")
            }
            sample.ts = ts
            sample.statsTime = e.statsTime ?? time
            return .sample(pcID, sample)
        } catch let e as SyntaxError {
            throw LineReject(reason: e.message + " at column \(e.column)")
        } catch let e as LineReject {
            throw e
        } catch let e as ImportError {
            throw e
        } catch {
            throw LineReject(reason: "\(error)")
        }
    }

    /// What an rtcstats array line holds, element by element.
    private struct LineElements {
        var method: String? = nil
        var pcID: String? = nil
        var sample: Sample? = nil
        /// Why a getstats value could not be read (a reject).
        var problem: String? = nil
        var statsTime: Fixed? = nil
        var lineTime: Fixed? = nil
        var metaText: String? = nil
        var metaValue: Range<Int>? = nil
        /// Format 3's time: the last element, when a number.
        var last: (index: Int, time: Fixed?) = (-1, nil)
        var pageURL: String? = nil
    }

    /// Reads the elements of the array opening at `p`: the method, the
    /// connection, the value as its method needs it, and the time.
    private func elements(_ line: UnsafeBufferPointer<UInt8>, _ p: inout Int, format3: Bool, firstArray: Bool) throws -> LineElements {
        var got = LineElements()
        try scanner.forEachElement(line, &p, depth: 0) { index, q in
            got.last = (index, nil)
            switch index {
            case 0:
                let scalar = try scanner.scanScalar(line, &q, depth: 1)
                if case .string(let s, let e, let esc) = scalar {
                    got.method = String(decoding: JSONScanner.stringBytes(line, s, e, esc), as: UTF8.self)
                } else if format3 && firstArray, case .number = scalar {
                    // rtcstats.com's format 3 numbers its methods and
                    // properties by tables its client sends: read as
                    // names, it would give nothing.
                    throw ImportError("rtcstats file format 3 with numbered methods (as rtcstats.com writes it): not read by this version, which reads format 3 as Chrome's webrtc-internals page writes it (method names as text)")
                }
            case 1:
                let start = q
                switch try scanner.scanScalar(line, &q, depth: 1) {
                case .string(let s, let e, let esc):
                    got.pcID = String(decoding: JSONScanner.stringBytes(line, s, e, esc), as: UTF8.self)
                case .number:
                    // A client that numbers its connections: the id as written.
                    got.pcID = String(decoding: UnsafeBufferPointer(rebasing: line[start..<q]), as: UTF8.self)
                default:
                    break
                }
            case 2 where got.method == "getstats" || got.method == "getStats":
                if line[q] == UInt8(ascii: "{") {
                    (got.sample, got.statsTime) = try parseSample(line, &q)
                } else if case .string(let s, let e, let esc) = try scanner.scanScalar(line, &q, depth: 1) {
                    // Older clients send the sample as a JSON string.
                    (got.sample, got.statsTime, got.problem) = try parseSampleString(JSONScanner.stringBytes(line, s, e, esc))
                } else {
                    got.problem = "getstats without an object"
                }
            case 2 where got.method.map(RTCStatsImporter.metaMethods.contains) == true:
                let from = q
                if line[q] == UInt8(ascii: "\""), case .string(let s, let e, let esc) = try scanner.scanScalar(line, &q, depth: 1) {
                    got.metaText = String(decoding: JSONScanner.stringBytes(line, s, e, esc), as: UTF8.self)
                } else {
                    try scanner.skipValue(line, &q, depth: 1)
                    if line[from] == UInt8(ascii: "{") || (line[from] == UInt8(ascii: "[") && got.method == "ontrack") { got.metaValue = from..<q }
                }
            case 3 where !format3:
                if case .number(let d) = try scanner.scanScalar(line, &q, depth: 1) { got.lineTime = Fixed(d) }
            case 3... where format3:
                if line[q] == UInt8(ascii: "{") || line[q] == UInt8(ascii: "[") {
                    try scanner.skipValue(line, &q, depth: 1)
                } else {
                    switch try scanner.scanScalar(line, &q, depth: 1) {
                    case .number(let d):
                        got.last.time = Fixed(d)
                    case .string(let s, let e, let esc) where index == 3 && got.method == "create":
                        // Chrome writes the page's address after a connection's configuration.
                        got.pageURL = String(decoding: JSONScanner.stringBytes(line, s, e, esc), as: UTF8.self)
                    default:
                        break
                    }
                }
            default:
                try scanner.skipValue(line, &q, depth: 1)
            }
        }
        return got
    }

    /// A meta line's content, at the line's usable time `ts`: a
    /// description kept as text, an array or object value decoded (they
    /// are few and short), or an older client's value as a JSON string.
    private func metaLine(_ line: UnsafeBufferPointer<UInt8>, method: String, pcID: String?, ts: Int64?, value: Range<Int>?,
                          text: String?, pageURL: String?) -> MetaLine {
        var object: [String: Any]? = nil
        if method == "setRemoteDescription" || ConnectionMeta.setsLocalDescription(method) {
            // Kept as text, read once if it decides the engine: a
            // dump renegotiating thousands of times paid a parse each.
            let description = value.map { String(decoding: UnsafeBufferPointer(rebasing: line[$0]), as: UTF8.self) } ?? text
            return MetaLine(method: method, pcID: pcID, ts: ts, text: description, object: nil)
        }
        if let value, line[value.lowerBound] == UInt8(ascii: "[") {
            let bytes = UnsafeBufferPointer(rebasing: line[value])
            let array = bytes.count <= 1 << 16 ? (try? JSONSerialization.jsonObject(with: RTCStatsImporter.foundationJSON(bytes))) as? [Any] : nil
            return MetaLine(method: method, pcID: pcID, ts: ts, text: nil, object: nil, array: array)
        }
        if let value {
            object = RTCStatsImporter.object(UnsafeBufferPointer(rebasing: line[value]))
        } else if let text, text.hasPrefix("{") {
            // Older clients send the value as a JSON string.
            object = Array(text.utf8).withUnsafeBufferPointer { RTCStatsImporter.object($0) }
        }
        return MetaLine(method: method, pcID: pcID, ts: ts, text: object == nil ? text : nil, object: object, pageURL: pageURL)
    }

    /// A getstats sample sent as a JSON string (older clients): the
    /// sample and its time, or the problem that makes the line a reject.
    private func parseSampleString(_ inner: [UInt8]) throws -> (Sample?, Fixed?, String?) {
        try inner.withUnsafeBufferPointer { b in
            var r = 0
            scanner.skipSpace(b, &r)
            guard r < b.count, b[r] == UInt8(ascii: "{") else { return (nil, nil, "getstats: the value string is not a JSON object") }
            do {
                let (sample, time) = try parseSample(b, &r)
                scanner.skipSpace(b, &r)
                return (sample, time, r != b.count ? "getstats: text after the object in the value string" : nil)
            } catch let e as SyntaxError {
                return (nil, nil, "getstats: the value string is not valid JSON (\(e.message) at column \(e.column))")
            }
        }
    }

    /// A small object of a meta line, decoded whole (these lines are few
    /// and short; the samples never come here). nil when it is not one.
    static func object(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: Any]? {
        guard bytes.count <= 1 << 20 else { return nil }
        return (try? JSONSerialization.jsonObject(with: foundationJSON(bytes), options: [])) as? [String: Any]
    }

    /// `bytes` for Foundation's parser, which refuses an unpaired surrogate
    /// escape that JSON's grammar admits (and the line scanner reads as
    /// U+FFFD): each such escape becomes `\ufffd`, of the same length. A
    /// participant whose `identity` line held a cut emoji lost its meeting
    /// and uid to the file name, without a word.
    static func foundationJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Data {
        var out: [UInt8]? = nil
        var i = 0
        let n = bytes.count
        func surrogate(at j: Int) -> UInt32? {
            guard j + 6 <= n, bytes[j] == UInt8(ascii: "\\"), bytes[j + 1] == UInt8(ascii: "u"),
                  let v = JSONScanner.hex4(bytes, j + 2), v >= 0xD800 && v < 0xE000 else { return nil }
            return v
        }
        while i < n {
            guard bytes[i] == UInt8(ascii: "\\"), i + 1 < n else { i += 1; continue }
            guard let unit = surrogate(at: i) else { i += 2; continue }  // any other escape, whole
            if unit < 0xDC00, let low = surrogate(at: i + 6), low >= 0xDC00 {
                i += 12  // a pair
                continue
            }
            if out == nil { out = Array(bytes) }
            out!.replaceSubrange(i + 2..<i + 6, with: Array("fffd".utf8))
            i += 6
        }
        return out.map { Data($0) } ?? Data(buffer: bytes)
    }

    /// A getstats object: `timestamp` and the reports keyed by id.
    private func parseSample(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> (Sample, Fixed?) {
        var deltas: [Delta] = []
        var timestamp: Fixed? = nil
        try scanner.forEachMember(s, &p, depth: 1) { ks, ke, kesc, q in
            if s[q] != UInt8(ascii: "{") {
                let value = try scanner.scanScalar(s, &q, depth: 2)
                if ke - ks == 9 && !kesc && StatsProperty.match(s, ks, ke) == .timestamp, case .number(let d) = value {
                    timestamp = Fixed(d)
                }
                return
            }
            var delta = Delta(id: String(decoding: JSONScanner.stringBytes(s, ks, ke, kesc), as: UTF8.self), type: nil, changes: [])
            try scanner.forEachMember(s, &q, depth: 2) { ps, pe, pesc, r in
                let property: StatsProperty?
                if pesc {
                    let name = JSONScanner.stringBytes(s, ps, pe, true)
                    property = name.withUnsafeBufferPointer { StatsProperty.match($0, 0, $0.count) }
                } else {
                    property = StatsProperty.match(s, ps, pe)
                }
                guard let property else { try scanner.skipValue(s, &r, depth: 3); return }
                let value = StatsReport.value(try scanner.scanScalar(s, &r, depth: 3), in: s)
                if property == .type { delta.type = value?.text } else { delta.changes.append((property, value)) }
            }
            deltas.append(delta)
        }
        return (Sample(ts: 0, statsTime: .zero, deltas: deltas), timestamp)
    }
}
