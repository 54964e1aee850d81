import Foundation
import MQABase

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

    /// Reads a description as a dump logs it: the SDP itself, webrtc-
    /// internals' `type: answer, sdp: v=0…` text, or JSON (`{"type":
    /// "answer", "sdp": "v=0…"}`, as rtcstats and Chrome 142 on write it);
    /// nil when it holds no `v=0` description. Read once per dump, for the
    /// connection that decides the engine: a dump may log thousands.
    init?(logged text: String) {
        guard let sdp = SessionDescriptionFacts.sdp(logged: text) else { return nil }
        var kind: UInt8 = 0  // 0 none, 1 audio, 2 video, 3 other
        var live = false
        func closeSection() {
            guard live else { return }
            if kind == 1 { audioSections += 1 } else if kind == 2 { videoSections += 1 }
        }
        for line in sdp.utf8.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            if line.starts(with: "m=".utf8) {
                closeSection()
                let fields = line.split(separator: 0x20, maxSplits: 2)
                let media = fields.first.map { Array($0.dropFirst(2)) } ?? []
                kind = media == Array("audio".utf8) ? 1 : media == Array("video".utf8) ? 2 : 3
                live = fields.count > 1 && !fields[1].elementsEqual("0".utf8)
            } else if line.elementsEqual("a=ice-lite".utf8) {
                iceLite = true
            } else if line.elementsEqual("a=inactive".utf8) {
                live = false
            }
        }
        closeSection()
    }

    /// The SDP of a description as a dump logs it: the SDP itself, webrtc-
    /// internals' `type: answer, sdp: v=0…` text, or JSON (`{"type":
    /// "answer", "sdp": "v=0…"}`); nil when it holds no `v=0` description.
    static func sdp(logged text: String) -> Substring? {
        var sdp = Substring(text)
        if text.first == "{" {
            guard let object = (try? ExactJSONReader.parse(Data(text.utf8))) as? [String: Any],
                  let inner = object["sdp"] as? String else { return nil }
            sdp = Substring(inner)
        } else if let at = text.range(of: "sdp: ") {
            sdp = text[at.upperBound...]
        }
        return sdp.utf8.starts(with: "v=0".utf8) ? sdp : nil
    }
}
