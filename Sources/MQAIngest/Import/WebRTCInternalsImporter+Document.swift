import MQABase
import MQAModel
import MQAStore

extension WebRTCInternalsImporter {
    /// Reads a webrtc-internals document a piece at a time, as it comes off
    /// the disk: the document's outline (its top-level members, and each
    /// member of `PeerConnections`) is followed byte by byte, and only one
    /// member's value is held at a time, then walked by the importer as a
    /// whole dump was. Memory is the largest connection, not the file.
    ///
    /// The outline is checked as JSON here (commas, colons, quotes, one
    /// object and nothing after it); each value is checked by the scanner
    /// that reads it. Errors name the byte of the whole document.
    final class DocumentReader {
        let importer: WebRTCInternalsImporter
        private let pipeline = Pipeline()
        private var identity = DumpIdentity()
        private var sawPeerConnections = false
        /// A non-empty top-level `peerConnections` (rtcstats-server's
        /// JSON of 2016): connections the dump holds but mqa does not read.
        private var sawLegacyConnections = false

        private enum State {
            /// Before the document's `{` (spaces and a byte order mark allowed).
            case start
            /// In the document (`depth` 1) or in `PeerConnections` (2):
            /// a key is next (or the end, right after the `{`).
            case key(depth: Int, first: Bool)
            /// Inside a key's quotes.
            case inKey(depth: Int)
            case colon(depth: Int)
            /// Spaces before a value.
            case beforeValue(depth: Int)
            /// Inside a value, held in `value`.
            case inValue(depth: Int)
            /// After a value: a comma or the end of the object.
            case next(depth: Int)
            /// After the document's `}`: spaces only.
            case done
        }

        private var state = State.start
        /// Bytes of the document before the current piece.
        private var offset = 0
        private var bomLeft = 3
        private var keyBytes: [UInt8] = []
        private var keyEscaped = false
        /// Where the key's opening quote is in the document.
        private var keyStart = 0
        private var topKey: [UInt8] = []
        private var value: [UInt8] = []
        private var valueStart = 0
        private var extent = ValueExtent()
        private let walker = JSONWalker()

        init(_ importer: WebRTCInternalsImporter) {
            self.importer = importer
        }

        deinit {
            // The converting thread calls back into the importer's state.
            pipeline.drain()
        }

        private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        private static let peerConnections = Array("PeerConnections".utf8)
        private static let userAgent = Array("UserAgent".utf8)
        private static let legacyPeerConnections = Array("peerConnections".utf8)

        private func syntax(_ message: String, at position: Int) -> ImportError {
            ImportError("not valid JSON: \(message) at byte \(position + 1)")
        }

        /// Takes the next piece of the document.
        func feed(_ piece: UnsafeBufferPointer<UInt8>) throws {
            var i = 0
            let n = piece.count
            while i < n {
                let b = piece[i]
                switch state {
                case .start:
                    if offset + i < 3 && bomLeft > 0 && b == DocumentReader.byteOrderMark[3 - bomLeft] {
                        bomLeft -= 1
                    } else if !DocumentReader.isSpace(b) {
                        guard b == UInt8(ascii: "{") else { throw ImportError("not a webrtc-internals dump: not a JSON object") }
                        state = .key(depth: 1, first: true)
                    }
                    i += 1
                case .key(let depth, let first):
                    i += 1
                    if DocumentReader.isSpace(b) { continue }
                    if b == UInt8(ascii: "\"") {
                        keyBytes.removeAll(keepingCapacity: true)
                        keyBytes.append(b)
                        keyStart = offset + i - 1
                        keyEscaped = false
                        state = .inKey(depth: depth)
                    } else if first && b == UInt8(ascii: "}") {
                        try close(depth)
                    } else {
                        throw syntax("expected a field name", at: offset + i - 1)
                    }
                case .inKey(let depth):
                    i += 1
                    keyBytes.append(b)
                    if keyEscaped {
                        keyEscaped = false
                    } else if b == UInt8(ascii: "\\") {
                        keyEscaped = true
                    } else if b == UInt8(ascii: "\"") {
                        state = .colon(depth: depth)
                    }
                case .colon(let depth):
                    i += 1
                    if DocumentReader.isSpace(b) { continue }
                    guard b == UInt8(ascii: ":") else { throw syntax("expected ':'", at: offset + i - 1) }
                    state = .beforeValue(depth: depth)
                case .beforeValue(let depth):
                    if DocumentReader.isSpace(b) { i += 1; continue }
                    if depth == 1 {
                        topKey = try decodedKey()
                        if topKey == DocumentReader.peerConnections && b == UInt8(ascii: "{") {
                            sawPeerConnections = true
                            state = .key(depth: 2, first: true)
                            i += 1
                            continue
                        }
                    }
                    value.removeAll(keepingCapacity: value.capacity <= 1 << 24)
                    valueStart = offset + i
                    extent = ValueExtent()
                    state = .inValue(depth: depth)
                case .inValue(let depth):
                    i = try takeValue(piece, from: i, depth: depth)
                case .next(let depth):
                    i += 1
                    if DocumentReader.isSpace(b) { continue }
                    if b == UInt8(ascii: ",") {
                        state = .key(depth: depth, first: false)
                    } else if b == UInt8(ascii: "}") {
                        try close(depth)
                    } else {
                        throw syntax("expected ',' or '}'", at: offset + i - 1)
                    }
                case .done:
                    i += 1
                    if !DocumentReader.isSpace(b) { throw syntax("unexpected text after the object", at: offset + i - 1) }
                }
            }
            offset += n
        }

        /// Takes the value's bytes from `i` on, in one copy per piece; once
        /// the value ends, hands it on. Returns where the piece goes on.
        private func takeValue(_ piece: UnsafeBufferPointer<UInt8>, from start: Int, depth: Int) throws -> Int {
            var i = start
            var end: Int? = nil
            while i < piece.count {
                switch extent.take(piece[i]) {
                case .more:
                    i += 1
                    continue
                case .endsAfter:
                    i += 1
                    end = i
                case .endedBefore:
                    end = i
                }
                break
            }
            value.append(contentsOf: UnsafeBufferPointer(rebasing: piece[start..<(end ?? i)]))
            if end != nil {
                try valueDone(depth)
                state = .next(depth: depth)
            }
            return i
        }

        /// The events of the whole document, once every piece is in.
        func finish() throws -> Conversion {
            switch state {
            case .done:
                break
            case .start:
                throw ImportError("not a webrtc-internals dump: not a JSON object")
            default:
                throw syntax("unterminated object", at: offset)
            }
            guard sawPeerConnections else { throw ImportError("not a webrtc-internals dump: no PeerConnections object") }
            var conversion = Conversion(format: .webrtcInternals)
            var results = try pipeline.result()
            LocaleLogTime.place(&results)
            try importer.context.finish(results, identity: identity, into: &conversion)
            if results.isEmpty {
                // Valid, and nothing in it: worth a word, since the usual
                // cause is the page itself, not the call.
                let reason = sawLegacyConnections ? WebRTCInternalsImporter.legacyConnections : WebRTCInternalsImporter.noConnections
                conversion.skipped.append(SkippedConnection(file: importer.context.file, connection: "", reason: reason))
            }
            return conversion
        }

        /// The object at `depth` closed: `PeerConnections` back to the
        /// document, the document to its end.
        private func close(_ depth: Int) throws {
            state = depth == 2 ? .next(depth: 1) : .done
        }

        /// The key just read, its escapes decoded (and checked).
        private func decodedKey() throws -> [UInt8] {
            try keyBytes.withUnsafeBufferPointer { b in
                var p = 0
                do {
                    guard case .string(let s, let e, let escaped) = try walker.scanScalar(b, &p, depth: 1) else { return [] }
                    return JSONScanner.stringBytes(b, s, e, escaped)
                } catch let e as SyntaxError {
                    throw ImportError("\(e.message) at byte \(keyStart + e.column)")
                }
            }
        }

        /// A whole value: a connection's goes to the importer; the user
        /// agent is noted; any other is checked and let go.
        private func valueDone(_ depth: Int) throws {
            let key = depth == 2 ? String(decoding: try decodedKey(), as: UTF8.self) : ""
            let start = valueStart
            try value.withUnsafeBufferPointer { v in
                var p = 0
                do {
                    if depth == 2 {
                        try importer.connection(key, v, &p, pipeline, &identity)
                    } else if topKey == DocumentReader.userAgent, case .string(let a, let b, let esc) = try walker.scanScalar(v, &p, depth: 1) {
                        identity.note(userAgent: String(decoding: JSONScanner.stringBytes(v, a, b, esc), as: UTF8.self))
                    } else {
                        p = 0
                        try walker.skipValue(v, &p, depth: 1)
                        // An object with a member (a valid object holds a ':' only then).
                        if topKey == DocumentReader.legacyPeerConnections && v.first == UInt8(ascii: "{") {
                            sawLegacyConnections = v.contains(UInt8(ascii: ":"))
                        }
                    }
                } catch let e as SyntaxError {
                    throw ImportError(e.message + " at byte \(start + e.column)")
                }
                guard p == v.count else { throw syntax("unexpected text after a value", at: start + p) }
            }
        }

        @inline(__always)
        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
    }

    /// Where a JSON value ends, told a byte at a time: a string at its
    /// closing quote, an object or array at the bracket that closes it, a
    /// number or literal just before the first byte that cannot be in one.
    /// It only counts brackets and quotes; the value's grammar is checked
    /// when it is read.
    struct ValueExtent {
        enum Step { case more, endsAfter, endedBefore }

        private var started = false
        private var isScalar = false
        private var depth = 0
        private var inString = false
        private var escaped = false

        @inline(__always)
        mutating func take(_ b: UInt8) -> Step {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return .endsAfter }
                }
                return .more
            }
            if !started {
                started = true
                switch b {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth = 1
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"):
                    // No value at all: the reader's check names it.
                    return .endedBefore
                default:
                    isScalar = true
                }
                return .more
            }
            if isScalar {
                switch b {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return .endedBefore
                default: return .more
                }
            }
            switch b {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return .endsAfter }
            default:
                break
            }
            return .more
        }
    }
}
