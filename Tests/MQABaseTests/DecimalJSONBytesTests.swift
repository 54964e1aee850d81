import Testing
import MQABase

/// `appendJSONText` writes the bytes of `jsonText`, for every shape a
/// decimal takes: integers with and without trailing zeros, the point
/// inside the digits, `0.` and leading zeros, exponents both ways,
/// negatives, null, doubles out of range, extreme mantissas.
@Suite struct DecimalJSONBytesTests {
    @Test func bytesAreTheText() {
        var g = SplitMix64(seed: 21)
        var numbers: [DecimalNumber] = [
            .null, DecimalNumber(binary: 1e300), DecimalNumber(binary: -Double.leastNormalMagnitude / 1e5), DecimalNumber(binary: 0.1),
            DecimalNumber(mantissa: 0, exponent: 0), DecimalNumber(mantissa: 0, exponent: -3), DecimalNumber(mantissa: 0, exponent: 9),
            DecimalNumber(mantissa: .max, exponent: 0), DecimalNumber(mantissa: .min + 1, exponent: -19),
            DecimalNumber(mantissa: .min, exponent: 2), DecimalNumber(mantissa: 5, exponent: -9),
            DecimalNumber(mantissa: 1200, exponent: 5), DecimalNumber(mantissa: 7, exponent: Int16.max - 1),
            DecimalNumber(mantissa: -3, exponent: Int16.min + 1),
        ]
        for _ in 0..<20_000 {
            let digits = g.int(in: 0...18)
            var m = Int64(g.next() % UInt64(pow10(digits)))
            if g.next() % 3 == 0 { m = -m }
            numbers.append(DecimalNumber(mantissa: m, exponent: Int16(g.int(in: -30...30))))
        }
        var line: [UInt8] = Array("x".utf8)
        for n in numbers {
            line.removeAll(keepingCapacity: true)
            line.append(UInt8(ascii: "["))
            n.appendJSONText(to: &line)
            #expect(String(decoding: line, as: UTF8.self) == "[" + n.jsonText, "\(n.mantissa)e\(n.exponent)")
        }
        for v in [Int64.min, -1, 0, 7, 1_795_946_400_000, .max] {
            line.removeAll()
            DecimalNumber.appendInteger(v, to: &line)
            #expect(String(decoding: line, as: UTF8.self) == String(v))
        }
    }

    func pow10(_ k: Int) -> Int64 { (0..<k).reduce(1) { acc, _ in acc * 10 } }
}
