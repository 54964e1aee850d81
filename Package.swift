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
// The line scanner and the tuning kernel touch struct fields millions of
// times a second; dynamic exclusivity checks there cost ~5% (callgrind).
// Static checks still run at compile time.
let hotLoops: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

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
        .target(name: "MQABase", dependencies: ["CZstd", "CZlib", "CCrypto"]),
        .target(name: "MQAModel", dependencies: ["MQABase"], swiftSettings: hotLoops),
        .target(name: "MQAAnalysis", dependencies: ["MQABase", "MQAModel"], swiftSettings: hotLoops),
        .target(name: "MQAStore", dependencies: ["CSQLite", "CZstd", "MQABase", "MQAModel", "MQAAnalysis", "MQAQueries"]),
        .target(name: "MQAIngest", dependencies: ["MQABase", "MQAModel", "MQAStore"]),
        .target(name: "MQASimulator", dependencies: ["MQABase", "MQAModel", "MQAAnalysis"]),
        .target(name: "MQAReports", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore"]),
        .target(name: "MQACLI", dependencies: [
            "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQASimulator", "MQAReports", "MQAQueries",
        ]),
        .executableTarget(name: "mqa", dependencies: ["MQACLI"]),
        // The app-side writer of the event log: Foundation only, so it builds for
        // iOS and macOS; zstd output only where the system library is there.
        .target(name: "MQARecorder", dependencies: [.target(name: "CZstd", condition: .when(platforms: [.linux]))]),
        // Benchmarks that print figures (never timed tests): swift run -c release NAME
        .executableTarget(name: "engine-bench", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest"], path: "Benchmarks/engine-bench"),
        .executableTarget(name: "sim-bench", dependencies: ["MQASimulator"], path: "Benchmarks/sim-bench"),
        .executableTarget(name: "recorder-bench", dependencies: ["MQARecorder"], path: "Benchmarks/recorder-bench"),
        // Builders the test targets share (ClientBuilder), so a fixture means
        // the same in each; a library, never shipped in a product.
        .target(name: "MQATestSupport", dependencies: ["MQABase", "MQAModel"], path: "Tests/MQATestSupport"),
        .testTarget(name: "MQAStoreTests", dependencies: ["MQABase", "MQAStore"]),
        .testTarget(name: "MQADomainTests", dependencies: ["MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest", "MQASimulator", "MQATestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MQASimulatorTests", dependencies: ["MQASimulator", "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQAIngest"]),
        // Goldens are read from the source tree (#filePath), never bundled.
        .testTarget(name: "MQAReportsTests", dependencies: ["MQAReports", "MQABase", "MQAModel", "MQAAnalysis", "MQAStore", "MQATestSupport"], exclude: ["Golden"]),
        .testTarget(name: "MQACLITests", dependencies: ["MQACLI", "MQAQueries", "MQABase", "MQAModel", "MQAStore", "MQAIngest"]),
        .testTarget(name: "MQARecorderTests", dependencies: ["MQARecorder", "MQAModel", "MQABase", "MQAStore", "MQAIngest"], swiftSettings: [.swiftLanguageMode(.v6)]),
    ],
    // Swift 5 mode: the CLI keeps command tables and output sinks in statics,
    // used from one thread; the parallel tuning sweep shares only immutable
    // arrays.
    swiftLanguageModes: [.v5]
)
