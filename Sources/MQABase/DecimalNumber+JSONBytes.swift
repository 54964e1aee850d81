/// `jsonText` written straight into a byte buffer: `mqa export` writes a
/// number per column of every quality report, and building each as a
/// `String` was most of its time.
extension DecimalNumber {
    /// Appends exactly the bytes of `jsonText` to `out`.
    public func appendJSONText(to out: inout [UInt8]) {
        if isNull {
            out.append(contentsOf: DecimalNumber.nullBytes)
            return
        }
        // Numbers out of a decimal's range are rare: the text's own path.
        if isBinary {
            out.append(contentsOf: jsonText.utf8)
            return
        }
        let n = normalized
        if n.mantissa < 0 { out.append(UInt8(ascii: "-")) }
        let start = out.count
        DecimalNumber.appendDigits(n.mantissa.magnitude, to: &out)
        let digits = out.count - start
        let zero = UInt8(ascii: "0")
        if n.exponent >= 0 {
            if n.exponent <= 6 {
                out.append(contentsOf: repeatElement(zero, count: Int(n.exponent)))
            } else {
                DecimalNumber.appendExponent(n.exponent, to: &out)
            }
            return
        }
        let places = Int(-n.exponent)
        if places < digits {
            // The point goes between the digits: shift the fraction right.
            out.append(0)
            let point = out.count - 1 - places
            var k = out.count - 1
            while k > point {
                out[k] = out[k - 1]
                k -= 1
            }
            out[point] = UInt8(ascii: ".")
        } else if places - digits <= 6 {
            // `0.` and zeros go before the digits.
            let lead = 2 + places - digits
            out.append(contentsOf: repeatElement(zero, count: lead))
            var k = out.count - 1
            while k >= start + lead {
                out[k] = out[k - lead]
                k -= 1
            }
            for i in start..<(start + lead) { out[i] = zero }
            out[start + 1] = UInt8(ascii: ".")
        } else {
            DecimalNumber.appendExponent(n.exponent, to: &out)
        }
    }

    /// The decimal digits of `value`, most significant first.
    public static func appendDigits(_ value: UInt64, to out: inout [UInt8]) {
        let start = out.count
        var v = value
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
            v /= 10
        } while v > 0
        out[start...].reverse()
    }

    /// `value` as JSON writes an integer.
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, to: &out)
    }

    private static func appendExponent(_ exponent: Int16, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "e"))
        appendInteger(Int64(exponent), to: &out)
    }

    private static let nullBytes = Array("null".utf8)
}
