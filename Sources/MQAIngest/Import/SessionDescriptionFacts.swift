/// What a connection's remote session description tells of the far end,
/// for the engine where the dump has no `rtcStatsSFUP2P` constraint
/// (Docs/import.md, "engine").
struct SessionDescriptionFacts: Equatable {
    /// `a=ice-lite`: the far end is a server (browsers always run full ICE;
    /// SFUs such as Jitsi's bridge, mediasoup and Google Meet's run lite).
    var iceLite = false
    /// Media sections in use, by kind (port not 0, not `a=inactive`): a
    /// direct peer negotiates one audio and one or two video sections (a
    /// camera, a screen); an SFU offers slots for many senders (Google
    /// Meet three audio, Teams eleven video). A section left by a removed
    /// track is inactive or rejected, and does not count.
    var audioSections = 0
    var videoSections = 0

    /// Slots for more senders than one peer has: an SFU's offer.
    var manySenders: Bool { audioSections > 1 || videoSections > 2 }

    /// Reads a description as a dump logs it (`LoggedDescription`); nil
    /// when it holds no `v=0` description. Read once per dump, for the
    /// connection that decides the engine.
    init?(logged text: String) {
        guard let description = LoggedDescription(text) else { return nil }
        iceLite = description.iceLite
        for section in description.sections where section.live {
            if section.kind == .audio { audioSections += 1 } else if section.kind == .video { videoSections += 1 }
        }
    }
}
