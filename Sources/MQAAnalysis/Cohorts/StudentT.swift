import Foundation

/// Student's t distribution, for the comparison's p-values (the
/// small-sample tails of a statistic estimated from few meetings).
enum StudentT {
    /// P(|T| ≥ |t|) with `df` degrees of freedom: I_{df/(df+t²)}(df/2, 1/2).
    static func twoSidedP(_ t: Double, df: Double) -> Double {
        guard t.isFinite else { return t.isNaN ? 1 : 0 }
        guard df > 0 else { return 1 }
        return min(1, max(0, incompleteBeta(a: df / 2, b: 0.5, x: df / (df + t * t))))
    }

    /// The regularised incomplete beta function I_x(a, b), by its
    /// continued fraction (modified Lentz), using the symmetry
    /// I_x(a, b) = 1 − I_{1−x}(b, a) where that converges faster.
    static func incompleteBeta(a: Double, b: Double, x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let logBeta: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
        let logPowers: Double = a * log(x) + b * log(1 - x)
        let front = exp(logBeta + logPowers)
        if x < (a + 1) / (a + b + 2) { return front * fraction(a: a, b: b, x: x) / a }
        return 1 - front * fraction(a: b, b: a, x: 1 - x) / b
    }

    private static func fraction(a: Double, b: Double, x: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0, d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var h = d
        for m in 1...300 {
            let m = Double(m)
            // Even step.
            var num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            d = 1 + num * d; if abs(d) < tiny { d = tiny }
            c = 1 + num / c; if abs(c) < tiny { c = tiny }
            d = 1 / d
            h *= d * c
            // Odd step.
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1 + num * d; if abs(d) < tiny { d = tiny }
            c = 1 + num / c; if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            h *= step
            if abs(step - 1) < 1e-12 { break }
        }
        return h
    }
}
