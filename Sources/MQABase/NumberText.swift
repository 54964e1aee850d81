/// A validated JSON number's text, read exactly: no rounding to `Double`
/// and no 19-digit cut, so range checks decide on the value that was
/// logged. `mos 0.99999999999999999999999` is below 1 even though the
/// nearest `Double` is 1.
///
/// The value is `0.d₁d₂…dₙ × 10^point` with `d₁ ≠ 0` (or zero). The digits
/// stay in the line; nothing is copied or allocated.
package struct NumberText {
    private let text: UnsafeBufferPointer<UInt8>
    package private(set) var negative = false
    /// True when every digit is zero (`0`, `-0.000`, `0e5`).
    package private(set) var isZero = true
    /// Position of the decimal point relative to the first significant digit.
    private(set) var point = 0
    /// Number of significant digits (trailing zeros left out).
    private(set) var digitCount = 0
    /// Index in `text` of the first significant digit, and one past the last.
    private var firstDigit = 0
    private var digitsEnd = 0
    /// Index of the '.' in the mantissa, or `Int.max`.
    private var dot = Int.max

    /// `text` must be a valid JSON number (the scanner checked it).
    package init(_ text: UnsafeBufferPointer<UInt8>) {
        self.text = text
        var i = 0
        if text[0] == UInt8(ascii: "-") { negative = true; i = 1 }
        var integerDigits = 0
        var leadingFractionZeros = 0
        var index = 0  // position among the digits from the first significant one
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            if c == UInt8(ascii: ".") { dot = i; i += 1; continue }
            if dot == Int.max { integerDigits += 1 }
            if isZero {
                if c == UInt8(ascii: "0") {
                    if dot != Int.max { leadingFractionZeros += 1 }
                    i += 1
                    continue
                }
                isZero = false
                firstDigit = i
            }
            index += 1
            if c != UInt8(ascii: "0") {
                digitsEnd = i + 1
                digitCount = index
            }
            i += 1
        }
        var exponent = 0
        if i < text.count {
            i += 1
            var expNegative = false
            if text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                expNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            while i < text.count {
                // Past a billion the value is beyond any bound compared with.
                if exponent < 1_000_000_000 { exponent = exponent * 10 + Int(text[i] - UInt8(ascii: "0")) }
                i += 1
            }
            if expNegative { exponent = -exponent }
        }
        guard !isZero else { return }
        // JSON allows no leading zeros but "0" itself, so a significant digit
        // in the integer part means all integer digits are significant.
        point = (firstDigit < dot ? integerDigits : -leadingFractionZeros) + exponent
    }

    /// Significant digit `k` (0-based); `0` past the last one.
    private func digit(_ k: Int) -> UInt8 {
        guard k < digitCount else { return 0 }
        var i = firstDigit + k
        if dot > firstDigit && i >= dot { i += 1 }
        return text[i] - UInt8(ascii: "0")
    }

    /// True for a whole number (`1e3`, `1795946400000.000`).
    package var isIntegral: Bool { isZero || digitCount <= point }

    /// The sign of `value − bound`, exactly.
    package func compare(toInteger bound: UInt64) -> Int {
        if isZero { return bound == 0 ? 0 : -1 }
        if negative { return -1 }
        if bound == 0 { return 1 }
        var boundDigits = 0
        var power: UInt64 = 1  // 10^(boundDigits − 1)
        var rest = bound
        while rest > 0 { boundDigits += 1; rest /= 10 }
        for _ in 1..<boundDigits { power *= 10 }
        if point != boundDigits { return point < boundDigits ? -1 : 1 }
        rest = bound
        for k in 0..<max(digitCount, boundDigits) {
            let b = power == 0 ? 0 : UInt8(rest / power)
            if power != 0 { rest %= power; power /= 10 }
            let a = digit(k)
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }
}
