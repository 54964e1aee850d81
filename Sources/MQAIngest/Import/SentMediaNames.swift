import MQABase

/// The names a participant's sent media goes by in the other participants'
/// dumps (Docs/import.md, "One call, several dumps"), read from the
/// session descriptions a dump logs (`LoggedDescription`).
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
        for section in LoggedDescription(text)?.sections ?? [] where section.sends {
            var own = section.streams.compactMap(RTCStatsImporter.publisher(stream:))
            if section.kind == .video { own += section.ssrcs.map { "remote-\($0)" } }
            for name in own where seen.insert(name).inserted { names.append(name) }
        }
        return names
    }

    /// What a logged remote description says of each SSRC the far end
    /// sends video on: the sender's track id (`a=ssrc:<n> msid:<stream>
    /// <track>`, or the section's `a=msid`), and the publisher its stream
    /// names (the msid of the track, read as
    /// `RTCStatsImporter.publisher(stream:)` reads an `ontrack` stream).
    /// The publisher is what a receiver whose stats name no track needs:
    /// Firefox's `inbound-rtp` has neither `trackIdentifier` nor `trackId`,
    /// and its `ontrack` track ids are its own, so without the description
    /// each of its tiles was `remote-<ssrc>` while a Safari viewer of the
    /// same camera named the sender's stream. Both keyed by the SSRC as
    /// text, as a receiver's `inbound-rtp` gives it.
    static func received(loggedDescription text: String) -> (tracks: [String: String], publishers: [String: String]) {
        var tracks: [String: String] = [:]
        var publishers: [String: String] = [:]
        for section in LoggedDescription(text)?.sections ?? [] where section.sends && section.kind == .video {
            // An SSRC without an msid of its own has the section's, where
            // the section names one (Unified Plan); in a section of many
            // (Plan B: each sender's SSRCs under their own msid lines) it
            // could be anyone's.
            let sectionTrack = Set(section.tracks).count == 1 ? section.tracks.first : nil
            let sectionStream = Set(section.streams).count == 1 ? section.streams.first : nil
            for ssrc in section.ssrcs {
                // An id the event log could carry (1–256 characters, not
                // blank): `a=msid:s  t` gives an empty one, which names nothing.
                if let track = section.ssrcTracks[ssrc] ?? sectionTrack, DumpIdentity.fits(track) {
                    tracks[String(ssrc)] = track
                }
                if let stream = section.ssrcStreams[ssrc] ?? sectionStream,
                   let publisher = RTCStatsImporter.publisher(stream: stream) {
                    publishers[String(ssrc)] = publisher
                }
            }
        }
        return (tracks, publishers)
    }
}
