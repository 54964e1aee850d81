/// SplitMix64 (Steele, Lea, Flood 2014; Vigna's reference constants).
///
/// The one random generator of the project: the simulator's only source of
/// randomness, and the seeded generator of the tests and benchmarks (so a
/// failing random test replays from the seed it prints). It lives at the
/// bottom layer because `ContentHasher` uses its finaliser too. It is a pure
/// 64-bit integer recurrence, so the same seed gives the same sequence on
/// every platform.
/// The floating-point helpers below use only IEEE-754 basic operations
/// (+, -, *, /, comparisons) and no libm function, so derived values are
/// bit-identical across platforms too.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// Settable only so that the methods can be `@inlinable`: the simulator
    /// draws millions of numbers from another module, and a call per draw
    /// would cost more than the draw.
    public var state: UInt64

    @inlinable
    public init(seed: UInt64) { state = seed }

    /// A generator for an independent sub-stream: `seed` mixed with `stream`.
    @inlinable
    public init(seed: UInt64, stream: UInt64) {
        state = SplitMix64.mix(seed ^ SplitMix64.mix(stream &+ 0x632B_E59B_D9B4_E019))
    }

    /// The SplitMix64 finaliser: a bijection on UInt64.
    @inlinable @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// Uniform in [0, 1) with 53 random bits.
    @inlinable @inline(__always)
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `p`.
    @inlinable @inline(__always)
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && unit() < p
    }

    /// Uniform integer in `0..<bound` (bound > 0), Lemire's multiply-high
    /// without rejection (bias < bound / 2^64, irrelevant here).
    @inlinable @inline(__always)
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Uniform integer in the closed range.
    @inlinable @inline(__always)
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// Uniform integer in the closed range, as Int64 milliseconds.
    @inlinable @inline(__always)
    public mutating func ms(in range: ClosedRange<Int>) -> Int64 {
        Int64(int(in: range))
    }

    /// Uniform double in the closed range.
    @inlinable @inline(__always)
    public mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// Approximately standard normal: Irwin–Hall sum of four uniforms,
    /// rescaled to variance 1 (bounded to ±3.46, no libm needed).
    @inlinable @inline(__always)
    public mutating func gaussian() -> Double {
        (unit() + unit() + unit() + unit() - 2.0) * 1.7320508075688772
    }

    /// Index drawn from non-negative weights (need not sum to 1).
    @inlinable
    public mutating func weighted(_ weights: [Double]) -> Int {
        var total = 0.0
        for w in weights { total += w }
        var x = unit() * total
        for (i, w) in weights.enumerated() {
            if x < w { return i }
            x -= w
        }
        return weights.count - 1
    }

    /// A uniformly chosen element.
    @inlinable
    public mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}
