import Foundation
import MQABase
import MQAModel

/// The names a participant's sent media goes by in the other participants'
/// dumps (Docs/import.md, "One call, several dumps"), read from the
/// session descriptions a dump logs.
///
/// A receiving browser names a remote track's publisher after the stream
/// id the sender's description gave it (`a=msid:<stream> <track>`), or
/// `remote-<ssrc>` where it gave none; the sender's own dump holds the same
/// description as its local one. Stored with the connection's context,
/// these names let a store that holds both dumps tell that the publisher
/// `5f0c…` is the participant `Ann`. The track itself a receiver names
/// anew (Chrome makes up its own track ids), but the description it
/// received names the sender's track on each SSRC: two viewers of one
/// camera read the same track there.
enum SentMediaNames {
    /// The publisher names the sending sections of a logged local
    /// description give: each stream id as a receiver would name its
    /// publisher (`RTCStatsImporter.publisher(stream:)`: Jitsi's
    /// `<endpoint>-video-0` is `<endpoint>`), and `remote-<ssrc>` for each
    /// SSRC of a sending video section. Empty for text without a
    /// description. Sections that only receive, or are rejected or
    /// inactive, send nothing and name nobody.
    static func from(loggedDescription text: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for section in sections(logged: text) where section.sends {
            var own = section.streams.compactMap(RTCStatsImporter.publisher(stream:))
            if section.video { own += section.ssrcs.map { "remote-\($0)" } }
            for name in own where seen.insert(name).inserted { names.append(name) }
        }
        return names
    }

    /// The sender's track id on each SSRC of the video sections a logged
    /// remote description says the far end sends: `a=ssrc:<n> msid:<stream>
    /// <track>`, or the section's `a=msid` for its SSRCs. Keyed by the SSRC
    /// as text, as a receiver's `inbound-rtp` gives it.
    static func senderTracks(loggedDescription text: String) -> [String: String] {
        var tracks: [String: String] = [:]
        for section in sections(logged: text) where section.sends && section.video {
            for ssrc in section.ssrcs {
                // An id the event log could carry (1–256 characters, not
                // blank): `a=msid:s  t` gives an empty one, which names nothing.
                if let track = section.ssrcTracks[ssrc] ?? section.tracks.first, DumpIdentity.fits(track) {
                    tracks[String(ssrc)] = track
                }
            }
        }
        return tracks
    }

    /// One media section of a description, as far as names go.
    struct Section {
        var video = false
        /// Not rejected (port 0), not `a=recvonly` or `a=inactive`.
        var sends = false
        /// `a=msid` stream ids and track ids, in order.
        var streams: [String] = []
        var tracks: [String] = []
        /// Every `a=ssrc` SSRC, once, in order.
        var ssrcs: [UInt32] = []
        /// Plan B and Chrome's `a=ssrc:<n> msid:<stream> <track>`.
        var ssrcTracks: [UInt32: String] = [:]
    }

    /// The media sections of a logged description: the SDP itself,
    /// webrtc-internals' `type: offer, sdp: v=0…` text, or JSON
    /// (`{"type": …, "sdp": "v=0…"}`); empty without one.
    ///
    /// On bytes, not on `String` views, and in place: a dump may log
    /// thousands of descriptions of tens of kilobytes (an SFU's,
    /// renegotiated per joiner). Indexing a substring's UTF-8 view made
    /// reading them 20 times slower than the rest of such a dump, and
    /// undoing the JSON string's escapes byte by byte cost more than all
    /// the rest: where its only escapes are `\r` and `\n`, as in every
    /// description, the lines are read between them as they stand.
    static func sections(logged: String) -> [Section] {
        var text = logged
        return text.withUTF8 { b in
            if b.first == UInt8(ascii: "{") {
                guard let (from, to, plain) = sdpString(in: b) else { return [] }
                if plain {
                    let sdp = UnsafeBufferPointer(rebasing: b[from..<to])
                    return has(v0, sdp, at: 0) ? sections(sdp, escapedBreaks: true) : []
                }
                // Other escapes: undone, once the string has proved valid
                // JSON (the page's text is not checked before: a bad `\u`
                // escape must name nothing, not stop the ingest).
                var p = from - 1
                guard case .string? = try? JSONWalker().scanScalar(b, &p, depth: 0), p == to + 1 else { return [] }
                let unescaped = JSONScanner.stringBytes(b, from, to, true)
                return unescaped.withUnsafeBufferPointer { has(v0, $0, at: 0) ? sections($0, escapedBreaks: false) : [] }
            }
            var sdp = b
            if let at = find(Array("sdp: ".utf8), in: b) { sdp = UnsafeBufferPointer(rebasing: b[(at + 5)...]) }
            return has(v0, sdp, at: 0) ? sections(sdp, escapedBreaks: false) : []
        }
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
    private static let video = Array("video".utf8)

    /// The media sections of an SDP's bytes; with `escapedBreaks`, the
    /// bytes of a JSON string, whose line breaks are `\r` and `\n`.
    static func sections(_ b: UnsafeBufferPointer<UInt8>, escapedBreaks: Bool) -> [Section] {
        var sections: [Section] = []
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
                section.video = kindEnd - (start + 2) == video.count && has(video, b, at: start + 2)
                // A port of 0 rejects the section.
                let portEnd = token(kindEnd + 1, end)
                section.sends = portEnd > kindEnd + 1 && !(portEnd == kindEnd + 2 && b[kindEnd + 1] == UInt8(ascii: "0"))
                sections.append(section)
                continue
            }
            guard !sections.isEmpty, b[start] == UInt8(ascii: "a") else { continue }
            let last = sections.count - 1
            if (end - start == recvonly.count && has(recvonly, b, at: start))
                || (end - start == inactive.count && has(inactive, b, at: start)) {
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
                    sections[last].streams.append(text(attribute + ssrcMsid.count, streamEnd))
                    if streamEnd < end { sections[last].ssrcTracks[n] = text(streamEnd + 1, token(streamEnd + 1, end)) }
                }
            }
        }
        return sections
    }
}
