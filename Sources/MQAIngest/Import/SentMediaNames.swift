import MQABase

/// The names a participant's sent media goes by in the other participants'
/// dumps (Docs/import.md, "One call, several dumps"), read from the local
/// session descriptions a dump logs.
///
/// A receiving browser names a remote track's publisher after the stream
/// id the sender's description gave it (`a=msid:<stream> <track>`), or
/// `remote-<ssrc>` where it gave none; the sender's own dump holds the same
/// description as its local one. Stored with the connection's context,
/// these names let a store that holds both dumps tell that the publisher
/// `5f0c…` is the participant `Ann`.
enum SentMediaNames {
    /// The publisher names the sending sections of a logged local
    /// description give: each stream id as a receiver would name its
    /// publisher (`RTCStatsImporter.publisher(stream:)`: Jitsi's
    /// `<endpoint>-video-0` is `<endpoint>`), and `remote-<ssrc>` for each
    /// SSRC of a sending video section. Empty for text without a
    /// description. Sections that only receive, or are rejected or
    /// inactive, send nothing and name nobody.
    static func from(loggedDescription text: String) -> [String] {
        guard let sdp = SessionDescriptionFacts.sdp(logged: text) else { return [] }
        var names: [String] = []
        var sectionNames: [String] = []
        var sends = false
        var video = false
        func closeSection() {
            if sends { for name in sectionNames where !names.contains(name) { names.append(name) } }
            sectionNames = []
        }
        func publisher(_ stream: Substring.UTF8View.SubSequence) -> String? {
            RTCStatsImporter.publisher(stream: String(decoding: stream, as: UTF8.self))
        }
        // Bytes, not `Character`s: a dump may log thousands of descriptions
        // of tens of kilobytes (an SFU's, renegotiated per joiner).
        for line in sdp.utf8.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            if line.starts(with: "m=".utf8) {
                closeSection()
                let fields = line.dropFirst(2).split(separator: 0x20, maxSplits: 2)
                video = fields.first?.elementsEqual("video".utf8) ?? false
                // A port of 0 rejects the section.
                sends = fields.count > 1 && !fields[1].elementsEqual("0".utf8)
            } else if line.elementsEqual("a=recvonly".utf8) || line.elementsEqual("a=inactive".utf8) {
                sends = false
            } else if line.starts(with: "a=msid:".utf8) {
                // `a=msid:<stream> <track>`; `-` for a track sent without a stream.
                if let name = publisher(line.dropFirst(7).prefix { $0 != 0x20 }) { sectionNames.append(name) }
            } else if line.starts(with: "a=ssrc:".utf8) {
                // `a=ssrc:<n> <attribute>`: Plan B names the stream here too.
                let rest = line.dropFirst(7)
                let digits = rest.prefix { $0 != 0x20 }
                guard let n = UInt32(String(decoding: digits, as: UTF8.self)) else { continue }
                if video { sectionNames.append("remote-\(n)") }
                let attribute = rest.dropFirst(digits.count + 1)
                if attribute.starts(with: "msid:".utf8), let name = publisher(attribute.dropFirst(5).prefix { $0 != 0x20 }) {
                    sectionNames.append(name)
                }
            }
        }
        closeSection()
        return names
    }
}
