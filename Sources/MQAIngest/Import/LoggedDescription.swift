import Foundation
import MQAModel

/// A session description as a stats dump logs it, read for what mqa uses:
/// each media section's kind, whether it is in use and sends, and the
/// stream, track and SSRC names it gives; `a=ice-lite`. The engine
/// (`SessionDescriptionFacts`) and the names that link one call's dumps
/// (`SentMediaNames`) are read from it.
struct LoggedDescription {
    /// `a=ice-lite`: the side that wrote it is a server.
    var iceLite = false
    var sections: [Section] = []

    private init(iceLite: Bool, sections: [Section]) {
        self.iceLite = iceLite
        self.sections = sections
    }

    /// One media section: its kind, whether it is in use, and the names it
    /// gives its streams, tracks and SSRCs.
    struct Section {
        enum Kind { case audio, video, other }
        var kind = Kind.other
        /// Not rejected (port 0), not `a=inactive`.
        var live = false
        /// Live, and not `a=recvonly`: the side that wrote it sends here.
        var sends = false
        /// `a=msid` stream ids and track ids, in order.
        var streams: [String] = []
        var tracks: [String] = []
        /// Every `a=ssrc` SSRC, once, in order.
        var ssrcs: [UInt32] = []
        /// Plan B and Chrome's `a=ssrc:<n> msid:<stream> <track>`.
        var ssrcTracks: [UInt32: String] = [:]
        var ssrcStreams: [UInt32: String] = [:]
    }

    /// Reads a description as a dump logs it: the SDP itself,
    /// webrtc-internals' `type: offer, sdp: v=0…` text, or JSON
    /// (`{"type": …, "sdp": "v=0…"}`, as rtcstats and Chrome 142 on write
    /// it); nil when it holds no `v=0` description.
    ///
    /// On bytes, not on `String` views, and in place: a dump may log
    /// thousands of descriptions of tens of kilobytes (an SFU's,
    /// renegotiated per joiner). Indexing a substring's UTF-8 view made
    /// reading them 20 times slower than the rest of such a dump, and
    /// undoing the JSON string's escapes byte by byte cost more than all
    /// the rest: where its only escapes are `\r` and `\n`, as in every
    /// description, the lines are read between them as they stand.
    init?(_ logged: String) {
        var text = logged
        guard let read = text.withUTF8({ b -> LoggedDescription? in
            if b.first == UInt8(ascii: "{") {
                guard let (from, to, plain) = LoggedDescription.sdpString(in: b) else { return nil }
                if plain { return LoggedDescription.parse(UnsafeBufferPointer(rebasing: b[from..<to]), escapedBreaks: true) }
                // Other escapes: undone, once the string has proved valid
                // JSON (the page's text is not checked before: a bad `\u`
                // escape must name nothing, not stop the ingest).
                var p = from - 1
                guard case .string? = try? JSONWalker().scanScalar(b, &p, depth: 0), p == to + 1 else { return nil }
                let unescaped = JSONScanner.stringBytes(b, from, to, true)
                return unescaped.withUnsafeBufferPointer { LoggedDescription.parse($0, escapedBreaks: false) }
            }
            var sdp = b
            if let at = LoggedDescription.find(Array("sdp: ".utf8), in: b) { sdp = UnsafeBufferPointer(rebasing: b[(at + 5)...]) }
            return LoggedDescription.parse(sdp, escapedBreaks: false)
        }) else { return nil }
        self = read
    }

    private static let v0 = Array("v=0".utf8), sdpKey = Array("\"sdp\"".utf8)

    /// The raw bytes of the `"sdp"` string of a JSON object, quotes left
    /// out, and whether its only escapes are `\r` and `\n`; nil when the
    /// object has no such string.
    static func sdpString(in b: UnsafeBufferPointer<UInt8>) -> (Int, Int, plain: Bool)? {
        var i = 0
        while let at = find(sdpKey, in: UnsafeBufferPointer(rebasing: b[i...])).map({ $0 + i }) {
            var p = at + sdpKey.count
            while p < b.count && (b[p] == 0x20 || b[p] == 0x09) { p += 1 }
            guard p < b.count, b[p] == UInt8(ascii: ":") else { i = at + 1; continue }
            p += 1
            while p < b.count && (b[p] == 0x20 || b[p] == 0x09) { p += 1 }
            guard p < b.count, b[p] == UInt8(ascii: "\"") else { return nil }
            let from = p + 1
            // From escape to escape (`memchr`: a description has one every
            // 40 bytes or so), up to the first quote no escape covers.
            var q = from
            var plain = true
            var quote = index(of: UInt8(ascii: "\""), in: b, from: q, to: b.count) ?? b.count
            while let slash = index(of: UInt8(ascii: "\\"), in: b, from: q, to: quote) {
                guard slash + 1 < b.count else { return nil }
                if b[slash + 1] != UInt8(ascii: "r") && b[slash + 1] != UInt8(ascii: "n") { plain = false }
                q = slash + 2
                if slash + 1 == quote { quote = index(of: UInt8(ascii: "\""), in: b, from: q, to: b.count) ?? b.count }
            }
            q = quote
            return q < b.count ? (from, q, plain) : nil
        }
        return nil
    }

    /// Where `needle` first occurs in `b`.
    private static func find(_ needle: [UInt8], in b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = needle.first, b.count >= needle.count else { return nil }
        var i = 0
        while i <= b.count - needle.count {
            if b[i] == first && has(needle, b, at: i) { return i }
            i += 1
        }
        return nil
    }

    /// The first `byte` in `b[from..<to]`.
    private static func index(of byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let base = b.baseAddress, let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether `b` holds `prefix` at `i`.
    private static func has(_ prefix: [UInt8], _ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard i + prefix.count <= b.count else { return false }
        for k in prefix.indices where b[i + k] != prefix[k] { return false }
        return true
    }

    private static let mLine = Array("m=".utf8), recvonly = Array("a=recvonly".utf8), inactive = Array("a=inactive".utf8)
    private static let msid = Array("a=msid:".utf8), ssrc = Array("a=ssrc:".utf8), ssrcMsid = Array("msid:".utf8)
    private static let video = Array("video".utf8), audio = Array("audio".utf8), iceLiteLine = Array("a=ice-lite".utf8)

    /// Reads an SDP's bytes (nil unless they begin with `v=0`); with
    /// `escapedBreaks`, the bytes of a JSON string, whose line breaks are
    /// `\r` and `\n`.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, escapedBreaks: Bool) -> LoggedDescription? {
        guard has(v0, b, at: 0) else { return nil }
        var sections: [Section] = []
        var iceLite = false
        func text(_ from: Int, _ to: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self) }
        /// The end of the space-free token at `i` (before `end`).
        func token(_ i: Int, _ end: Int) -> Int {
            var j = i
            while j < end && b[j] != 0x20 { j += 1 }
            return j
        }
        var start = 0
        while start < b.count {
            // The line's end: the next `\n` (a `\r` before it dropped), or in
            // a JSON string the next `\r` or `\n` escape; found by `memchr`.
            var end = b.count
            var next = b.count
            if escapedBreaks {
                var from = start
                while let slash = index(of: UInt8(ascii: "\\"), in: b, from: from, to: b.count) {
                    if slash + 1 < b.count && (b[slash + 1] == UInt8(ascii: "r") || b[slash + 1] == UInt8(ascii: "n")) {
                        end = slash
                        next = slash + 2
                        break
                    }
                    from = slash + 2
                }
            } else if let newline = index(of: 0x0A, in: b, from: start, to: b.count) {
                end = newline
                next = newline + 1
            }
            if end > start && b[end - 1] == 0x0D { end -= 1 }
            defer { start = next }
            // Only `m=` and `a=` lines name anything.
            guard end - start > 2, b[start + 1] == UInt8(ascii: "=") else { continue }
            if has(mLine, b, at: start) {
                var section = Section()
                let kindEnd = token(start + 2, end)
                func kindIs(_ name: [UInt8]) -> Bool { kindEnd - (start + 2) == name.count && has(name, b, at: start + 2) }
                section.kind = kindIs(video) ? .video : kindIs(audio) ? .audio : .other
                // A port of 0 rejects the section.
                let portEnd = token(kindEnd + 1, end)
                section.live = portEnd > kindEnd + 1 && !(portEnd == kindEnd + 2 && b[kindEnd + 1] == UInt8(ascii: "0"))
                section.sends = section.live
                sections.append(section)
                continue
            }
            guard b[start] == UInt8(ascii: "a") else { continue }
            func line(is name: [UInt8]) -> Bool { end - start == name.count && has(name, b, at: start) }
            if line(is: iceLiteLine) { iceLite = true }
            guard !sections.isEmpty else { continue }
            let last = sections.count - 1
            if line(is: inactive) {
                sections[last].live = false
                sections[last].sends = false
            } else if line(is: recvonly) {
                sections[last].sends = false
            } else if has(msid, b, at: start) {
                // `a=msid:<stream> <track>`; `-` for a track sent without a stream.
                let streamEnd = token(start + msid.count, end)
                sections[last].streams.append(text(start + msid.count, streamEnd))
                if streamEnd < end { sections[last].tracks.append(text(streamEnd + 1, token(streamEnd + 1, end))) }
            } else if has(ssrc, b, at: start) {
                // `a=ssrc:<n> <attribute>`: Plan B (and Chrome's offers) name the stream here too.
                let digitsEnd = token(start + ssrc.count, end)
                guard let n = UInt32(text(start + ssrc.count, digitsEnd)) else { continue }
                if !sections[last].ssrcs.contains(n) { sections[last].ssrcs.append(n) }
                let attribute = digitsEnd + 1
                if attribute < end, has(ssrcMsid, b, at: attribute) {
                    let streamEnd = token(attribute + ssrcMsid.count, end)
                    let stream = text(attribute + ssrcMsid.count, streamEnd)
                    sections[last].streams.append(stream)
                    sections[last].ssrcStreams[n] = stream
                    if streamEnd < end { sections[last].ssrcTracks[n] = text(streamEnd + 1, token(streamEnd + 1, end)) }
                }
            }
        }
        return LoggedDescription(iceLite: iceLite, sections: sections)
    }
}
