// swift-tools-version:6.0
import PackageDescription

// Every .sql file in Queries/ is compiled into the binary (no resource bundle
// to ship). Listed by name: SwiftPM caches the manifest, so a directory
// listing here would miss a newly added query until the cache is dropped.
let queryFiles = [
    "low-mos-participants.sql",
    "meetings.sql",
    "rejects.sql",
    "schema.sql",
    "stalls-by-track.sql",
    "storage.sql",
    "tracks.sql",
    "worst-meetings.sql",
]

// Layers, bottom up (Docs/architecture.md draws them):
//   C shims (CSQLite, CZstd, CZlib, CCrypto)
//   -> MQABase      decimals, hashing, compression, generators, files, text
//   -> MQAModel     the event-log contract: events, logs, the line parser
//   -> MQAAnalysis  tiers, subscriptions, incidents, tuning: pure functions of logs
//   -> MQAStore     SQLite, chunk codecs, the store's tables: the only SQL
//   -> MQAIngest    reading inputs, dump importers, the ingest pipeline
//   -> MQASimulator, MQAReports (every output) -> MQACLI -> mqa
// Only the toolchain and four Debian C libraries are used: no Swift package can
// be fetched on the machines this builds on.
// The line scanner, the chunk codecs, the batch parser and the tuning kernel
// touch struct and class fields millions of times a second. Dynamic
// exclusivity checks cost 5.2 % of an ingest's instructions with the flag
// off everywhere (callgrind, 60 logs: 1,082M vs 1,028M) and 0.8 % of a
// tune's, so the modules on those paths keep it; static checks still run.
// Cross-module optimization lets the hot calls between those modules inline
// as they did inside the one module they were before the split: without it
// an ingest ran 1.2 % and a tune 4.5 % more instructions than before the
// split (1,028M vs 1,016M; 1,001M vs 958M), with it 0.2 % and 0.6 %.
let hotLoops: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "mqa",
    products: [
        .executable(name: "mqa", targets: ["mqa"]),
        .library(name: "MQAAnalysis", targets: ["MQAAnalysis"]),
        .library(name: "MQARecorder", targets: ["MQARecorder"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "MQAQueries", path: "Queries",
            exclude: ["README.md"],
            resources: queryFiles.map { .embedInCode($0) }),
        .target(name: "MQABase", dependencies: ["CZstd", "CZlib", "CCrypto"], swiftSettings: hotLoops),
        .target(name: "MQAModel", dependencies: ["MQABase"], swiftSettings: hotLoops),
        .target(name: "MQAAnalysis", dependencies: ["MQABase", "MQAModel"], swiftSettings: hotLoops),
        .target(name: "MQAStore", dependencies: ["CSQLite", "CZstd", "CZlib", "MQABase", "MQAModel", "MQAAnalysis", "MQAQueries"], swiftSettings: hotLoops),
        .target(name: "MQAIngest", dependencies: ["MQABase", "MQAModel", "MQAStore"], swiftSettings: hotLoops),
        .target(name: "MQASimulator", dependencies: ["MQABase", "MQAModel", "MQAAnalysis"]),
        .target(name: "MQAReports", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore"]),
        .target(name: "MQACLI", dependencies: [
            "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQASimulator", "MQAReports", "MQAQueries",
        ]),
        .executableTarget(name: "mqa", dependencies: ["MQACLI", "MQABase"]),
        // The app-side writer of the event log: Foundation only, so it builds for
        // iOS and macOS; zstd output only where the system library is there.
        .target(name: "MQARecorder", dependencies: [.target(name: "CZstd", condition: .when(platforms: [.linux]))]),
        // Benchmarks that print figures (never timed tests): swift run -c release NAME
        .executableTarget(name: "engine-bench", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest"], path: "Benchmarks/engine-bench"),
        .executableTarget(name: "sim-bench", dependencies: ["MQASimulator"], path: "Benchmarks/sim-bench"),
        .executableTarget(name: "parse-bench", dependencies: ["MQAModel"], path: "Benchmarks/parse-bench", swiftSettings: hotLoops),
        // How often an incident names the true side of a stall, on a simulated fleet.
        .executableTarget(
            name: "cause-check", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQASimulator"],
            path: "Benchmarks/cause-check"),
        .executableTarget(name: "recorder-bench", dependencies: ["MQARecorder"], path: "Benchmarks/recorder-bench"),
        // Builders the test targets share (ClientBuilder), so a fixture means
        // the same in each; a library, never shipped in a product.
        .target(name: "MQATestSupport", dependencies: ["MQABase", "MQAModel"], path: "Tests/MQATestSupport"),
        .testTarget(name: "MQABaseTests", dependencies: ["MQABase"]),
        .testTarget(name: "MQAStoreTests", dependencies: ["MQABase", "MQAStore"]),
        .testTarget(name: "MQADomainTests", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQASimulator", "MQATestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MQASimulatorTests", dependencies: ["MQASimulator", "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest"]),
        // Goldens are read from the source tree (#filePath), never bundled.
        .testTarget(name: "MQAReportsTests", dependencies: ["MQAReports", "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQASimulator", "MQATestSupport"], exclude: ["Golden"]),
        .testTarget(name: "MQACLITests", dependencies: ["MQACLI", "MQAQueries", "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQAReports", "MQATestSupport"]),
        .testTarget(name: "MQARecorderTests", dependencies: ["MQARecorder", "MQAModel", "MQABase", "MQAStore", "MQAIngest", "MQATestSupport"]),
    ],
    // Swift 6 language mode for every target, tests and benchmarks too.
    swiftLanguageModes: [.v6]
)
