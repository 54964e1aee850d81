import Foundation

/// File names made from ids, which are arbitrary strings from the logs (up
/// to 256 characters, any Unicode, `/`, `..`): the one rule, used by batch
/// reports (`make`), the report site's anchors (`hash`), the simulator's
/// folders (`stem`) and mirrored by the Spark job (`safe_file_name` in
/// Spark/mqa_spark.py, held to this by a test). The recorder keeps its own
/// rule for a reason given at `LogFiles.safeName`.
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

    /// `id` as a file name: its `stem` (`meeting` when that is empty), `-`,
    /// the hash of `id`, `.` and `ext`.
    public static func make(for id: String, extension ext: String) -> String {
        let s = stem(id)
        return "\(s.isEmpty ? "meeting" : s)-\(hash(id)).\(ext)"
    }

    /// The readable part of the rule alone, without the hash: `[A-Za-z0-9._-]`
    /// kept, no `..`, no leading dot, at most 64 characters; empty only for
    /// an empty `id`. An id that is already safe (`m-42`, `u-8f02`) is kept
    /// as it is. Names made of it alone may collide (`a/b`, `a:b`): use it
    /// only where the ids are known to be distinct once cleaned.
    public static func stem(_ id: String) -> String {
        var stem = ""
        for scalar in id.unicodeScalars {
            let ok = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
                || (scalar >= "0" && scalar <= "9") || scalar == "." || scalar == "_" || scalar == "-"
            stem.unicodeScalars.append(ok ? scalar : "_")
        }
        while stem.contains("..") { stem = stem.replacingOccurrences(of: "..", with: "_.") }
        if stem.hasPrefix(".") { stem = "_" + stem.dropFirst() }
        if stem.count > maxStemLength { stem = String(stem.prefix(maxStemLength)) }
        return stem
    }

    /// FNV-1a 64 of the UTF-8 bytes, folded to 32 bits, as 8 hex digits:
    /// stable across runs and platforms (unlike `Hasher`).
    package static func hash(_ id: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let folded = UInt32(truncatingIfNeeded: h ^ (h >> 32))
        let hex = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
