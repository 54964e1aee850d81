#if canImport(Glibc)
import Glibc
#endif

/// A number exactly as it was written in the log: `mantissa × 10^exponent`.
///
/// Keeping the decimal (not the `Double`) is what lets the store hold `0.4`
/// as the integer 4 at scale 1, delta-encode it, and give back `0.4` to the
/// last digit. Two markers in `exponent` cover what a 64-bit decimal cannot:
/// `null`, and numbers outside its range, which are kept as `Double` bits.
public struct DecimalNumber: Hashable, Sendable {
    public var mantissa: Int64
    public var exponent: Int16

    /// `exponent` value marking a JSON `null`.
    public static let nullExponent = Int16.min
    /// `exponent` value marking `mantissa` as the bit pattern of a `Double`.
    public static let binaryExponent = Int16.max

    public static let null = DecimalNumber(mantissa: 0, exponent: nullExponent)

    public init(mantissa: Int64, exponent: Int16) {
        self.mantissa = mantissa
        self.exponent = exponent
    }

    /// A number kept as its `Double` value.
    public init(binary value: Double) {
        mantissa = Int64(bitPattern: value.bitPattern)
        exponent = DecimalNumber.binaryExponent
    }

    /// The decimal of the shortest digits that read back as `value`
    /// (Swift's `description`: at most 17 significant digits); nil for an
    /// infinity or NaN.
    public init?(shortestDigitsOf value: Double) {
        guard value.isFinite else { return nil }
        var mantissa: Int64 = 0
        var exponent = 0
        var fraction = false
        var negativeExponent = false
        var exponentDigits = 0
        var inExponent = false
        for c in value.magnitude.description.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = Int(c - UInt8(ascii: "0"))
                if inExponent {
                    exponentDigits = exponentDigits * 10 + digit
                } else {
                    mantissa = mantissa * 10 + Int64(digit)
                    if fraction { exponent -= 1 }
                }
            case UInt8(ascii: "."): fraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            case UInt8(ascii: "-"): negativeExponent = true
            case UInt8(ascii: "+"): break
            default: return nil
            }
        }
        exponent += negativeExponent ? -exponentDigits : exponentDigits
        self.init(mantissa: value < 0 ? -mantissa : mantissa, exponent: Int16(exponent))
    }

    public var isNull: Bool { exponent == DecimalNumber.nullExponent }
    public var isBinary: Bool { exponent == DecimalNumber.binaryExponent }

    /// The same number with trailing zeros of the mantissa moved into the
    /// exponent, so that equal numbers have equal representations.
    public var normalized: DecimalNumber {
        if isNull || isBinary { return self }
        if mantissa == 0 { return DecimalNumber(mantissa: 0, exponent: 0) }
        var m = mantissa
        var e = exponent
        while m % 10 == 0 && e < Int16.max - 1 {
            m /= 10
            e += 1
        }
        return DecimalNumber(mantissa: m, exponent: e)
    }

    static let exactPowers: [Double] = (0...22).map { p in
        var v = 1.0
        for _ in 0..<p { v *= 10 }
        return v
    }

    /// 10^p for p in 0...22, exact. The powers logs use (0 to 3: integers,
    /// loss and MOS) come from literals: the table, a lazily built global,
    /// cost a `swift_once` per value, and every report has five.
    @inline(__always)
    public static func power(_ p: Int) -> Double {
        switch p {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        default: return exactPowers[p]
        }
    }

    /// The nearest `Double`, rounded exactly as a correct JSON parser rounds
    /// the decimal text. `nil` for `null`.
    ///
    /// When the mantissa and the power of ten are both exact doubles, one
    /// IEEE multiplication or division is correctly rounded; otherwise the C
    /// library's `strtod`, which rounds correctly, does the work.
    public var doubleValue: Double? {
        if isNull { return nil }
        if isBinary { return Double(bitPattern: UInt64(bitPattern: mantissa)) }
        let magnitude = mantissa.magnitude
        if magnitude <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            let m = Double(mantissa)
            return exponent < 0 ? m / DecimalNumber.power(Int(-exponent)) : m * DecimalNumber.power(Int(exponent))
        }
        if exponent == 0 { return Double(mantissa) }
        return strtod("\(mantissa)e\(exponent)", nil)
    }

    /// Appends each value's `doubleValue` (`null` for a null) to `column`.
    /// The values of a stored column share one exponent, so its power of
    /// ten is looked up once: `Double(m) / 10^s` is the very operation
    /// `doubleValue` does for an exact mantissa and a small scale, so the
    /// bits are the same. The column grows once and is filled through its
    /// buffer.
    public static func appendDoubles(of values: [DecimalNumber], to column: inout [Double], null: Double) {
        let old = column.count
        column.append(contentsOf: repeatElement(0, count: values.count))
        // Exponent 0 and its power 1 agree with `doubleValue` from the
        // start. (Starting at an exponent "none yet" of 1 with power 1 read
        // a column's leading values of exponent 1, such as 20 stored as
        // 2e1, as a tenth of themselves.)
        var exponent = Int16(0)
        var power = 1.0
        values.withUnsafeBufferPointer { v in
            column.withUnsafeMutableBufferPointer { out in
                for (k, x) in v.enumerated() {
                    if x.exponent == exponent && x.mantissa.magnitude <= 1 << 53 {
                        out[old + k] = Double(x.mantissa) / power
                        continue
                    }
                    out[old + k] = x.doubleValue ?? null
                    if x.exponent <= 0 && x.exponent >= -22 {
                        exponent = x.exponent
                        power = DecimalNumber.power(Int(-x.exponent))
                    }
                }
            }
        }
    }

    /// The number as JSON text: plain decimal notation where it is short,
    /// exponent notation otherwise. `null` for null.
    public var jsonText: String {
        if isNull { return "null" }
        if isBinary {
            // The shortest digits that read back as this double, written as
            // a decimal is: exported, then ingested again (as a decimal of
            // those digits), the value exports as the same text.
            let d = doubleValue!
            return DecimalNumber(shortestDigitsOf: d)?.jsonText ?? "\(d)"
        }
        let n = normalized
        let negative = n.mantissa < 0
        let digits = String(n.mantissa.magnitude)
        var body: String
        if n.exponent >= 0 {
            body = n.exponent <= 6 ? digits + String(repeating: "0", count: Int(n.exponent)) : "\(digits)e\(n.exponent)"
        } else {
            let places = Int(-n.exponent)
            if places < digits.count {
                body = String(digits.dropLast(places)) + "." + String(digits.suffix(places))
            } else if places - digits.count <= 6 {
                body = "0." + String(repeating: "0", count: places - digits.count) + digits
            } else {
                body = "\(digits)e\(n.exponent)"
            }
        }
        return negative ? "-" + body : body
    }
}
