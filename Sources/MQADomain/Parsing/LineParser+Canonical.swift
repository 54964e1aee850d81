extension LineParser {
    /// Appends the canonical payload JSON of the last `.event` line (not a
    /// quality report) straight from the scanned bytes: the same text as
    /// `payload().canonicalJSON`, without building Strings or the enum. This
    /// runs for every non-report line, so it matters for ingest speed.
    func appendCanonicalPayload(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ k: FieldKey) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: k.name.utf8)
            out.append(contentsOf: "\":".utf8)
        }
        func string(_ k: FieldKey, optional: Bool = false) {
            let f = field(k)
            guard f.type == .string else { return }  // optional and absent or null
            key(k)
            appendQuoted(f, to: &out)
        }
        func bool(_ k: FieldKey) {
            key(k)
            out.append(contentsOf: (field(k).bool ? "true" : "false").utf8)
        }
        switch kind {
        case .meetingJoin: string(.engine); string(.title)
        case .meetingLeave, .reconnect, .qualityReport: break
        case .disconnect: string(.reason); string(.error)
        case .connectionQualityChange: string(.tier)
        case .activeSpeakersChange:
            key(.speakers)
            out.append(UInt8(ascii: "["))
            var firstSpeaker = true
            forEachArrayElement(field(.speakers)) { element in
                if !firstSpeaker { out.append(UInt8(ascii: ",")) }
                firstSpeaker = false
                appendQuoted(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .streamSubscribe: string(.publisher); string(.track); string(.kind)
        case .streamUnsubscribe: string(.publisher); string(.track)
        case .receiveStreamStatus: string(.publisher); string(.track); bool(.timedOut)
        case .userEnter, .userLeave: string(.target)
        case .memberMediaState: string(.target); string(.media); bool(.on); bool(.byAdmin); string(.opUid)
        case .roomTitleChange: string(.title); string(.previousTitle)
        case .roomShareStart, .roomShareStop: string(.publisher)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A string value as `JSON.quote` writes it. Without escapes the logged
    /// bytes already are that text (a raw JSON string holds no quote,
    /// backslash or control character); with escapes it is decoded and
    /// escaped again, minimally.
    private func appendQuoted(_ f: FieldValue, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let raw = UnsafeBufferPointer(rebasing: line[f.start..<f.end])
        if !f.hasEscapes {
            out.append(contentsOf: raw)
        } else {
            var decoded: [UInt8] = []
            JSONScanner.unescape(raw, into: &decoded)
            for b in decoded {
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case 0x0A: out.append(contentsOf: "\\n".utf8)
                case 0x0D: out.append(contentsOf: "\\r".utf8)
                case 0x09: out.append(contentsOf: "\\t".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hex[Int(b >> 4)])
                    out.append(hex[Int(b & 15)])
                default: out.append(b)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
