#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MQABase
import MQAModel
import MQAStore

/// One unusable sample line of an rtcstats dump.
public struct ImportReject: Sendable, Equatable {
    /// 1-based line number in the (decompressed) dump.
    public var line: Int
    public var reason: String
    /// The line's bytes, cut to 4 KiB like any rejected line.
    public var raw: [UInt8]
    /// The line's full length.
    public var size: Int
}

/// One peer connection that produced events.
public struct ImportedConnection: Sendable, Equatable {
    public var connection: String
    public var samples: Int
    public var events: Int
}


/// What a dump turned into.
public struct Conversion: Sendable {
    public var format: InputFormat
    /// The events as event-log lines (NDJSON, `\n` after each), per
    /// connection in the dump's order, each connection's in time order.
    public var lines: [UInt8] = []
    public var rejects: [ImportReject] = []
    public var connections: [ImportedConnection] = []
    public var skipped: [SkippedConnection] = []
    /// What standard stats add about the counted connections.
    public var contexts: [ConnectionContext] = []

    public var events: Int { connections.reduce(0) { $0 + $1.events } }
    public var samples: Int { connections.reduce(0) { $0 + $1.samples } }
}

/// A dump that is not valid in its format; it is rejected whole.
public struct ImportError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var description: String { reason }
    public init(_ reason: String) { self.reason = reason }
}

/// Converting WebRTC stats dumps to event-log lines (Docs/import.md).
public enum WebRTCImport {
    /// The format of content that starts with `prefix` (decompressed bytes,
    /// as many as are at hand; 64 KiB is plenty).
    ///
    /// A webrtc-internals dump is one object with a top-level
    /// `"PeerConnections"` key and no top-level `"event"` key (an event
    /// line may carry any extra field), or one that opens like such a
    /// document (a lone `{` line before a key, or a one-line document with the page's
    /// `getUserMedia` or `UserAgent` key that runs past the prefix). Otherwise
    /// the first 64 complete lines vote: more JSON array lines than
    /// object lines mean rtcstats (whose metadata and server-side lines
    /// are objects; a tie goes to rtcstats unless the first object line
    /// has a top-level `event` key), anything else the event log, whose validator then
    /// explains what is wrong with it. The text `PeerConnections` as a
    /// value, or stray array lines among event lines, no longer turn an
    /// event log into a dump (whose reading then failed, or found no
    /// samples and stored nothing).
    public static func sniff(_ prefix: UnsafeBufferPointer<UInt8>) -> InputFormat {
        switch verdict(prefix, wide: true) {
        case .format(let format): return format
        case .lookWider: return .rtcstats  // not reached: the cut line decides
        }
    }

    /// The format of `reader`'s content: told by its first 64 KiB, or by
    /// a wider look where those end in a line that would decide it.
    static func sniff(_ reader: LineReader) throws -> InputFormat {
        if case .format(let format) = try reader.withPeekedContent({ verdict($0, wide: false) }) { return format }
        return try reader.withPeekedContent(limit: widerLook) { sniff($0) }
    }

    /// What a prefix says: a format, or that its last line, cut off, would
    /// decide it and a wider look should (`Ingester` then reads
    /// `widerLook` bytes and asks again, `wide`).
    enum Verdict: Equatable {
        case format(InputFormat)
        case lookWider
    }

    /// How much a second look reads: the read buffer, which holds a line
    /// of the longest kind (a dump's first sample runs to a megabyte).
    static let widerLook = LineReader.bufferCapacity

    /// `sniff`'s reading of `prefix`. Not `wide` (the first 64 KiB), a cut line
    /// that would decide asks for a wider look instead: in 64 KiB the
    /// line of a dump's first sample after its metadata lines and an app
    /// log's mirrored sample before its events look alike, and only the
    /// lines after it tell them apart. The wider look is the same vote on
    /// more lines (a vote of its own, in which the app's objects did not
    /// count, made such an app log a dump that 64 KiB read right).
    static func verdict(_ prefix: UnsafeBufferPointer<UInt8>, wide: Bool) -> Verdict {
        var p = 0
        if prefix.count >= 3 && prefix[0] == 0xEF && prefix[1] == 0xBB && prefix[2] == 0xBF { p = 3 }
        func skipSpace() { while p < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[p]) { p += 1 } }
        skipSpace()
        guard p < prefix.count else { return .format(.events) }
        if prefix[p...].starts(with: rtcstatsFormat3) { return .format(.rtcstats) }
        // Whether the first object line is an event-log line: it breaks a
        // tie of the vote below (an rtcstats header object and one array
        // line; one event line and a stray array).
        var firstObjectIsEvent: Bool?
        if prefix[p] == UInt8(ascii: "{") {
            let keys = topLevelKeys(of: prefix, from: p)
            firstObjectIsEvent = keys.eventLine
            if keys.peerConnections && !keys.event { return .format(.webrtcInternals) }
            // rtcstats-server's own lines (a bridge's or a focus's dump):
            // rtcstats that carries no client's stats, not a bad event log.
            if keys.statsSession && !keys.event { return .format(.rtcstats) }
            if !keys.closed && !keys.event {
                // An event-log line is one object on one line: a document
                // that opens with a lone `{` (pretty-printed) is a dump whose
                // PeerConnections come later, and so is a long one-line
                // document that starts with the page's `getUserMedia` list.
                // Its next line holds a key (or closes it); a lone `{`
                // before lines of objects is an event log's bad first line.
                if let newline = prefix[p...].firstIndex(of: 0x0A),
                   prefix[(p + 1)..<newline].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                    let next = prefix[(newline + 1)...].first { !(0x20 == $0 || 0x09 == $0 || 0x0A == $0 || 0x0D == $0) }
                    if next == nil || next == UInt8(ascii: "\"") || next == UInt8(ascii: "}") { return .format(.webrtcInternals) }
                }
                // A one-line document past the whole prefix with one of the
                // page's other top-level keys (`getUserMedia`, `UserAgent`,
                // whichever the page wrote first) is a dump too.
                if keys.pageKey && prefix.count >= 1 << 16 { return .format(.webrtcInternals) }
            }
        }
        // The vote of the first 64 complete lines (all of them cost 0.5 %
        // of an ingest of small logs): a line's first byte says which.
        var arrays = 0
        var objects = 0
        guard let base = prefix.baseAddress else { return .format(.events) }
        // The line the prefix cuts off, where it starts (no newline after it).
        var cut: Int? = nil
        while p < prefix.count && arrays + objects < 64 {
            let rest = prefix.count - p
            guard let hit = memchr(base + p, 0x0A, rest) else { cut = p; break }
            let newline = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            switch prefix[p] {
            case UInt8(ascii: "["):
                // A method line, whole or cut; other arrays (`[1,2]`), random
                // bytes that open with `[`, or a `[2026-…]` text line, are
                // no vote for a dump.
                if RTCStatsImporter.opensWithMethodName(UnsafeBufferPointer(rebasing: prefix[p..<newline]), JSONWalker()) { arrays += 1 }
            case UInt8(ascii: "{"):
                // In the wider look, rtcstats-server's own lines (a top-level
                // `statsSessionId`, as the importer reads them) are a dump's:
                // after a long first sample, they outvoted it. (Asked only
                // there: keys of every object line cost the first look.)
                if wide && topLevelKeys(of: UnsafeBufferPointer(rebasing: prefix[p..<newline]), from: 0).statsSession {
                    arrays += 1
                    break
                }
                objects += 1
                if firstObjectIsEvent == nil { firstObjectIsEvent = topLevelKeys(of: prefix, from: p).eventLine }
            default: break
            }
            p = newline + 1
            skipSpace()
        }
        // The line cut off: a dump's first `getstats` line (or one with a
        // description) is often longer than the whole prefix, after a few
        // metadata object lines (the dump was taken for an event log,
        // every line rejected). A cut line of a method rtcstats clients
        // write, before which no event line came, decides; any other (an
        // app's 70 KB `["debug", …]` line) says nothing.
        if let cut, RTCStatsImporter.opensWithDumpMethod(UnsafeBufferPointer(rebasing: prefix[cut...]), JSONWalker()),
           !hasEventLine(prefix, before: cut) {
            return wide ? .format(.rtcstats) : .lookWider
        }
        // In the wider look (the same vote as the first, on more lines), an
        // object line cut at its end votes as a whole one would: an app
        // log whose long line ended just before 2 MiB had only its
        // header's vote against that line's, and the tie made it a dump.
        if wide, let cut, prefix[cut] == UInt8(ascii: "{") {
            objects += 1
            if firstObjectIsEvent == nil { firstObjectIsEvent = topLevelKeys(of: prefix, from: cut).eventLine }
        }
        if arrays == objects && arrays > 0 { return .format(firstObjectIsEvent == true ? .events : .rtcstats) }
        return .format(arrays > objects ? .rtcstats : .events)
    }

    /// Whether any whole line of `prefix` before `end` is an event-log
    /// line. Asked only of a prefix cut in a getstats line, so the vote's
    /// lines are not scanned twice for every file.
    static func hasEventLine(_ prefix: UnsafeBufferPointer<UInt8>, before end: Int) -> Bool {
        var p = 0
        while p < end {
            let newline = prefix[p..<end].firstIndex(of: 0x0A) ?? end
            var q = p
            while q < newline, [0x20, 0x09, 0x0D, 0xEF, 0xBB, 0xBF].contains(prefix[q]) { q += 1 }
            // The line alone: its object may be cut, and a scan to the
            // prefix's end for each of thousands of lines was quadratic.
            if q < newline && prefix[q] == UInt8(ascii: "{")
                && topLevelKeys(of: UnsafeBufferPointer(rebasing: prefix[q..<newline]), from: 0).eventLine { return true }
            p = newline + 1
        }
        return false
    }

    /// The first line of rtcstats' file format 3.
    static let rtcstatsFormat3 = Array("RTCStatsDump".utf8)

    /// The key every line of an rtcstats-server dump carries (Jitsi's
    /// videobridge and focus write their own stats that way).
    static let statsSessionKey = Array("statsSessionId".utf8)

    /// What an object's top level holds, as far as telling formats apart
    /// needs (`topLevelKeys`).
    struct TopLevelKeys {
        /// A `PeerConnections` key: a webrtc-internals document.
        var peerConnections = false
        var event = false
        /// Another key of the webrtc-internals page (`getUserMedia`, `UserAgent`).
        var pageKey = false
        /// A `statsSessionId` key: a server-side rtcstats line.
        var statsSession = false
        /// Whether the object closed within the bytes looked at.
        var closed = false
        /// How many of an event line's `ts`, `meeting` and `uid` it has.
        var envelope = 0

        /// An event-log line, whole or short of one envelope field (the
        /// usual bug of an app's logger): `event` and two of the three.
        /// An app's own metadata (`{"event":"upload_complete"}`) is not one.
        var eventLine: Bool { event && envelope >= 2 }
    }

    /// What the object opening at `prefix[start]` has at its top level
    /// (`TopLevelKeys`). Strings are skipped with their escapes, so a value
    /// that holds a key's text is not taken for the key.
    static func topLevelKeys(of prefix: UnsafeBufferPointer<UInt8>, from start: Int) -> TopLevelKeys {
        let peerConnections = Array("PeerConnections".utf8), event = Array("event".utf8)
        let pageKeys = [Array("getUserMedia".utf8), Array("UserAgent".utf8)]
        let envelopeKeys = [Array("ts".utf8), Array("meeting".utf8), Array("uid".utf8)]
        var seen = 0  // the envelope keys met, a bit each
        var found = TopLevelKeys()
        var depth = 0
        var i = start
        let n = prefix.count
        while i < n {
            let c = prefix[i]
            if c == UInt8(ascii: "\"") {
                let open = i + 1
                i = open
                while i < n && prefix[i] != UInt8(ascii: "\"") { i += prefix[i] == UInt8(ascii: "\\") ? 2 : 1 }
                guard i < n else { return found }
                if depth == 1 {
                    let text = prefix[open..<i]
                    let isPC = text.elementsEqual(peerConnections), isEvent = text.elementsEqual(event)
                    let isPage = pageKeys.contains { text.elementsEqual($0) }
                    let isSession = text.elementsEqual(statsSessionKey)
                    let envelopeKey = envelopeKeys.firstIndex { text.elementsEqual($0) }
                    if isPC || isEvent || isPage || isSession || envelopeKey != nil {
                        // A key, not a value, when a ':' follows.
                        var j = i + 1
                        while j < n && (prefix[j] == 0x20 || prefix[j] == 0x09 || prefix[j] == 0x0A || prefix[j] == 0x0D) { j += 1 }
                        if j < n && prefix[j] == UInt8(ascii: ":") {
                            if isPC { found.peerConnections = true } else if isEvent { found.event = true }
                            else if isSession { found.statsSession = true }
                            else if let k = envelopeKey {
                                seen |= 1 << k
                                found.envelope = seen.nonzeroBitCount
                            } else { found.pageKey = true }
                        }
                    }
                }
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 {
                    found.closed = true
                    return found
                }
            }
            i += 1
        }
        return found
    }

    // The ingest's own rules for blank lines and stored reject text, kept
    // here so that the importers build without the store (the fuzz targets).
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in line where !(b == 0x20 || b == 0x09 || b == 0x0D) { return false }
        return true
    }

    static func rawBytes(_ line: UnsafeBufferPointer<UInt8>) -> [UInt8] { Array(line.prefix(4096)) }

    /// The meeting id of a dump: `--meeting` when given, else the room
    /// the dump names, else `rtc-<name>`.
    public static func meetingID(fileName: String, meeting: String?, room: String? = nil) -> String {
        meeting ?? "rtc-" + (room ?? baseName(fileName))
    }

    /// The file name without its directory and without any trailing
    /// `.gz`, `.zst`, `.txt`, `.json`, `.log` extensions.
    public static func baseName(_ path: String) -> String {
        var name = path == "-" ? "stdin" : String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? "")
        while true {
            guard let ext = [".gz", ".zst", ".txt", ".json", ".log"].first(where: { name.hasSuffix($0) && name.count > $0.count })
            else { break }
            name.removeLast(ext.count)
        }
        return name
    }

    /// Converts a whole dump (decompressed) to event-log lines.
    ///
    /// - Parameters:
    ///   - fileName: the path as given; names the meeting and the uids.
    ///   - meeting: `--meeting`, when given.
    ///   - emit: when given, receives each converted connection's lines
    ///     as soon as they are ready (they are then not in `lines`), so a
    ///     caller can store them while the rest converts. A later throw
    ///     still means the whole dump is invalid.
    /// - Throws: `ImportError` when the dump is not valid in its format.
    public static func convert(
        _ bytes: UnsafeBufferPointer<UInt8>, format: InputFormat, fileName: String, meeting: String?,
        emit: ((UnsafeBufferPointer<UInt8>) throws -> Void)? = nil
    ) throws -> Conversion {
        let context = ImportContext(meeting: meeting, name: baseName(fileName), file: fileName, emit: emit)
        switch format {
        case .events: throw ImportError("an event log is not a dump")
        case .rtcstats: return try RTCStatsImporter(context: context).convert(bytes)
        case .webrtcInternals: return try WebRTCInternalsImporter(context: context).convert(bytes)
        }
    }
}

/// Names shared by the two importers.
struct ImportContext {
    /// `--meeting`, when given.
    var meeting: String?
    var name: String
    var file: String
    var emit: ((UnsafeBufferPointer<UInt8>) throws -> Void)?
    /// The ingest's clock: a sample time more than a day after it (or
    /// before 2000) is no time, as an event's `ts` would be rejected.
    var nowMs: Int64 = Int64((Date().timeIntervalSince1970 * 1000).rounded())

    /// Whether `ts` can be a sample's time: the event log's range.
    func isSampleTime(_ ts: Int64) -> Bool { LineParser.isEventTime(ts, nowMs: nowMs) }

    /// Makes the dump's one participant out of its connections and hands
    /// the events on (Docs/import.md, "One dump, one person").
    ///
    /// - uid: the dump's `userId`, else its `displayName`, else its
    ///   `endpointId`, else the file's name;
    /// - meeting: `--meeting`, else `rtc-<room>`, else `rtc-<name>`; the
    ///   room is also the title.
    func finish(_ results: [ConnectionResult], identity: DumpIdentity, into conversion: inout Conversion) throws {
        let room = identity.room
        var meetingID = WebRTCImport.meetingID(fileName: file, meeting: meeting, room: room)
        if !DumpIdentity.fits(meetingID) { meetingID = WebRTCImport.meetingID(fileName: file, meeting: meeting) }
        let uid = identity.userID ?? identity.displayName ?? identity.endpointID ?? name
        for r in results where !r.outOfRange.isEmpty {
            let times = r.outOfRange.prefix(3).map(String.init).joined(separator: ", ") + (r.outOfRange.count > 3 ? ", …" : "")
            conversion.rejects.append(ImportReject(
                line: 1, reason: "\(r.converter.connection): \(r.outOfRange.count) stats time\(r.outOfRange.count == 1 ? "" : "s") out of range "
                    + "(\(times); before 2000-01-01 or more than a day in the future): \(r.outOfRange.count == 1 ? "its values" : "their values") left out",
                raw: [], size: 0))
        }
        let assembler = ParticipantAssembler(
            meeting: meetingID, uid: DumpIdentity.fits(uid) ? uid : name, file: file, title: room,
            client: identity.client, endpointID: identity.endpointID)
        try assembler.assemble(results, into: &conversion, emit: emit)
    }
}

/// What a conversion adds to the ingest summary.
struct ConversionCounts {
    var format: InputFormat
    var connections: Int
    var samples: Int
    var events: Int
    var skipped: [SkippedConnection]
    var contexts: [ConnectionContext]

    init(_ c: Conversion) {
        format = c.format
        connections = c.connections.count
        samples = c.samples
        events = c.events
        skipped = c.skipped
        contexts = c.contexts
    }
}
