/// What a connection's remote session description tells of the far end,
/// for the engine where the dump has no `rtcStatsSFUP2P` constraint
/// (Docs/import.md, "engine").
struct SessionDescriptionFacts: Equatable {
    /// `a=ice-lite`: the far end is a server (browsers always run full ICE;
    /// SFUs such as Jitsi's bridge, mediasoup and Google Meet's run lite).
    var iceLite = false
    /// Media sections by kind: a direct peer negotiates one audio and one
    /// or two video sections (a camera, a screen); an SFU offers slots for
    /// many senders (Google Meet three audio, Teams eleven video).
    var audioSections = 0
    var videoSections = 0

    /// Reads an SDP text; nil when it holds no `v=0` description.
    init?(sdp text: Substring) {
        guard text.contains("v=0") else { return nil }
        for line in text.split(whereSeparator: \.isNewline) {
            if line == "a=ice-lite" { iceLite = true }
            else if line.hasPrefix("m=audio ") { audioSections += 1 }
            else if line.hasPrefix("m=video ") { videoSections += 1 }
        }
    }

    /// The page's log text of a description (`type: answer, sdp: v=0…`)
    /// or an SDP itself.
    init?(logText text: String) {
        if let at = text.range(of: "sdp: ") {
            self.init(sdp: text[at.upperBound...])
        } else {
            self.init(sdp: text[...])
        }
    }

    /// Slots for more senders than one peer has: an SFU's offer.
    var manySenders: Bool { audioSections > 1 || videoSections > 2 }
}
