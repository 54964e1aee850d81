import MQABase

/// How `files` keys its rows compactly (schema version 3).
///
/// The rest of mqa speaks of a content digest in its text form, `sha256:`
/// and 64 lowercase hex digits. The table keeps such a digest as its 32
/// bytes, a BLOB: the row and the UNIQUE index each hold 39 bytes fewer.
/// Anything else (the 32-hex fingerprints of version-1 stores) stays the
/// text it was.
///
/// Paths are looked up through `path_key`, a 32-bit hash of the path,
/// instead of an index over the whole path: the row still holds the path,
/// and every lookup compares it, so two paths with the same key are still
/// two inputs. On 4,939 files of ~74 KB the table and its indexes went from
/// 2.07 MB (13 % of the store) to 1.16 MB.
enum FileKeys {
    /// The digest as stored: 32 bytes for a `sha256:` text, else the text.
    static func bind(_ s: Statement, _ index: Int32, digest: String?) {
        guard let digest else { s.bindNull(index); return }
        if let bytes = sha256Bytes(digest) { s.bind(index, blob: bytes) } else { s.bind(index, digest) }
    }

    /// The digest in its text form, as `bind(_:_:digest:)` stored it.
    static func digest(_ s: Statement, _ i: Int32) -> String? {
        switch s.value(i) {
        case .blob(let bytes) where bytes.count == 32: SHA256.text(bytes)
        case .text(let text): text
        case .null: nil
        // Not written by mqa: shown as it is, so that it never equals a digest.
        case let other: "\(other)"
        }
    }

    /// The 32 bytes of `sha256:<64 lowercase hex>`, nil for any other text.
    static func sha256Bytes(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 -> [UInt8]? in
            guard utf8.count == 71, utf8.starts(with: "sha256:".utf8) else { return nil }
            var out = [UInt8](repeating: 0, count: 32)
            for i in 0..<32 {
                guard let high = nibble(utf8[7 + 2 * i]), let low = nibble(utf8[8 + 2 * i]) else { return nil }
                out[i] = high << 4 | low
            }
            return out
        }
    }

    /// A lowercase hex digit's value (upper case would not round-trip).
    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// `files.path_key`: FNV-1a over the path's UTF-8, folded to 32 bits so
    /// that SQLite stores it in 4 bytes.
    static func pathKey(_ path: String) -> Int64 {
        var path = path
        let h = path.withUTF8 { utf8 in
            utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
        }
        return Int64(Int32(bitPattern: h))
    }
}
