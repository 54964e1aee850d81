import MQABase
import MQAModel
import MQAAnalysis

/// A Markov chain over `NetworkState`, one transition per report step.
struct NetworkChain: Sendable {
    /// Cumulative transition rows, flattened: row `from` at `from * n`.
    private let cumulative: [Double]
    private static let n = NetworkState.allCases.count

    init(transitions: [[Double]]) {
        var c: [Double] = []
        c.reserveCapacity(Self.n * Self.n)
        for row in transitions {
            var sum = 0.0
            for v in row { sum += v; c.append(sum) }
        }
        cumulative = c
    }

    @inline(__always)
    func next(after state: NetworkState, _ rng: inout SplitMix64) -> NetworkState {
        let x = rng.unit()
        let base = state.rawValue * Self.n
        for to in 0..<(Self.n - 1) where x < cumulative[base + to] {
            return NetworkState(rawValue: to)!
        }
        return NetworkState(rawValue: Self.n - 1)!
    }

    /// States for `steps` consecutive steps, starting in `.good`.
    func run(steps: Int, _ rng: inout SplitMix64) -> [NetworkState] {
        var out: [NetworkState] = []
        out.reserveCapacity(steps)
        var s = NetworkState.good
        for _ in 0..<steps {
            out.append(s)
            s = next(after: s, &rng)
        }
        return out
    }
}
