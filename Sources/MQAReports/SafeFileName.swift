import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// File names for batch output made from meeting ids, which are arbitrary
/// strings from the logs (up to 256 characters, any Unicode, `/`, `..`).
///
/// Rule: every character outside `[A-Za-z0-9._-]` becomes `_`; runs of dots
/// become one `_` each time two meet (so no `..` survives) and a leading dot
/// becomes `_` (no hidden files); the result is cut to 64 characters; then
/// `-` and 8 hex digits of a hash of the raw id's UTF-8 are appended, so ids
/// that clean to the same text (`a/b`, `a:b`) still get different files;
/// then the extension. The name can never contain `/`, be `.` or `..`, or
/// collide with `index.*`.
public enum SafeFileName {
    public static let maxStemLength = 64

    public static func make(for id: String, extension ext: String) -> String {
        var stem = ""
        for scalar in id.unicodeScalars {
            let ok = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
                || (scalar >= "0" && scalar <= "9") || scalar == "." || scalar == "_" || scalar == "-"
            stem.unicodeScalars.append(ok ? scalar : "_")
        }
        while stem.contains("..") { stem = stem.replacingOccurrences(of: "..", with: "_.") }
        if stem.hasPrefix(".") { stem = "_" + stem.dropFirst() }
        if stem.count > maxStemLength { stem = String(stem.prefix(maxStemLength)) }
        if stem.isEmpty { stem = "meeting" }
        return "\(stem)-\(hash(id)).\(ext)"
    }

    /// FNV-1a 64 of the UTF-8 bytes, folded to 32 bits, as 8 hex digits:
    /// stable across runs and platforms (unlike `Hasher`).
    static func hash(_ id: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let folded = UInt32(truncatingIfNeeded: h ^ (h >> 32))
        let hex = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
