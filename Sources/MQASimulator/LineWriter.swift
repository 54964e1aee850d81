import MQABase
import MQAModel
import MQAAnalysis

/// Appends NDJSON bytes into a reusable buffer: no JSONEncoder, no
/// Double-to-string conversion of the platform (numbers are written with a
/// fixed-decimal formatter of our own, so output is byte-identical anywhere).
struct LineWriter {
    var buffer: [UInt8] = []

    init(capacity: Int = 1 << 16) {
        buffer.reserveCapacity(capacity)
    }

    mutating func reset() { buffer.removeAll(keepingCapacity: true) }

    @inline(__always)
    mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func bytes(_ b: [UInt8]) {
        buffer.append(contentsOf: b)
    }

    @inline(__always)
    mutating func byte(_ b: UInt8) {
        buffer.append(b)
    }

    /// Decimal integer.
    mutating func int(_ value: Int64) {
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
            unsigned(UInt64(bitPattern: 0 &- value))
        } else {
            unsigned(UInt64(value))
        }
    }

    @inline(__always)
    mutating func int(_ value: Int) { int(Int64(value)) }

    private mutating func unsigned(_ value: UInt64) {
        if value < 10 { buffer.append(UInt8(truncatingIfNeeded: value) &+ 48); return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = 20
            var v = value
            repeat {
                i -= 1
                digits[i] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                v /= 10
            } while v > 0
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// `value` rounded half away from zero to `decimals` (0...6) places,
    /// trailing zeros dropped ("7.5", "0.04", "3"). Non-finite values are
    /// written as 0 (JSON has no NaN; the simulator never produces one).
    mutating func fixed(_ value: Double, decimals: Int) {
        guard value.isFinite else { buffer.append(UInt8(ascii: "0")); return }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * Double(scale)).rounded()
        var units = Int64(scaled)
        if units == 0 { buffer.append(UInt8(ascii: "0")); return }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        unsigned(UInt64(units / scale))
        units %= scale
        if units == 0 { return }
        buffer.append(UInt8(ascii: "."))
        var digits = decimals
        var divisor = scale / 10
        while digits > 0 && units > 0 {
            buffer.append(UInt8(truncatingIfNeeded: units / divisor) &+ 48)
            units %= divisor
            divisor /= 10
            digits -= 1
        }
    }

    /// A JSON string literal with quotes. Escapes `"`, `\` and control
    /// characters; everything else (Unicode, `<`, `>`, `&`, `'`) is written
    /// as its UTF-8 bytes, which is valid JSON.
    mutating func string(_ s: String) {
        buffer.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x00..<0x20, 0x7F:
                raw("\\u00")
                buffer.append(Self.hex[Int(b >> 4)])
                buffer.append(Self.hex[Int(b & 0xF)])
            default: buffer.append(b)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// An RFC 3339 timestamp string with quotes and millisecond precision:
    /// `"2026-11-29T10:00:02.125Z"`, or with a numeric offset
    /// (`"2026-11-29T11:00:02.125+01:00"`) when `offsetMinutes` != 0.
    mutating func rfc3339(_ epochMs: Int64, offsetMinutes: Int = 0) {
        let local = epochMs + Int64(offsetMinutes) * 60_000
        let ms = floorMod(local, 1000)
        let secs = floorDiv(local, 1000)
        let days = floorDiv(secs, 86_400)
        let sod = floorMod(secs, 86_400)
        let (y, m, d) = Time.civil(fromDays: days)
        buffer.append(UInt8(ascii: "\""))
        pad(y, 4); byte(UInt8(ascii: "-")); pad(m, 2); byte(UInt8(ascii: "-")); pad(d, 2)
        byte(UInt8(ascii: "T"))
        pad(sod / 3600, 2); byte(UInt8(ascii: ":"))
        pad(sod / 60 % 60, 2); byte(UInt8(ascii: ":"))
        pad(sod % 60, 2); byte(UInt8(ascii: "."))
        pad(ms, 3)
        if offsetMinutes == 0 {
            byte(UInt8(ascii: "Z"))
        } else {
            byte(UInt8(ascii: offsetMinutes > 0 ? "+" : "-"))
            let o = Int64(abs(offsetMinutes))
            pad(o / 60, 2); byte(UInt8(ascii: ":")); pad(o % 60, 2)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// `value` (>= 0) with exactly `width` digits, zero-padded.
    private mutating func pad(_ value: Int64, _ width: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width) { digits in
            var v = value
            for i in stride(from: width - 1, through: 0, by: -1) {
                digits[i] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                v /= 10
            }
            buffer.append(contentsOf: UnsafeBufferPointer(digits))
        }
    }

    private func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDiv(a, b) * b
    }
}
