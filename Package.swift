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

// Layers, bottom up: C shims -> store/codec -> domain -> simulator/reports -> CLI.
// Only the toolchain and four Debian C libraries are used: no Swift package can
// be fetched on the machines this builds on.
// The ingest scanner and the tuning kernel touch struct fields millions of
// times a second; dynamic exclusivity checks there cost ~5% (callgrind).
// Static checks still run at compile time.
let hotLoops: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "mqa",
    products: [
        .executable(name: "mqa", targets: ["mqa"]),
        .library(name: "MQADomain", targets: ["MQADomain"]),
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
        .target(name: "MQAStore", dependencies: ["CSQLite", "CZstd", "CZlib", "CCrypto"], swiftSettings: hotLoops),
        .target(name: "MQADomain", dependencies: ["MQAStore", "MQAQueries"], swiftSettings: hotLoops),
        .target(name: "MQASimulator", dependencies: ["MQADomain", "MQAStore"]),
        .target(name: "MQAReports", dependencies: ["MQADomain", "MQAStore"]),
        .target(name: "MQACLI", dependencies: ["MQADomain", "MQASimulator", "MQAReports", "MQAQueries"]),
        .executableTarget(name: "mqa", dependencies: ["MQACLI"]),
        // The app-side writer of the event log: Foundation only, so it builds for
        // iOS and macOS; zstd output only where the system library is there.
        .target(name: "MQARecorder", dependencies: [.target(name: "CZstd", condition: .when(platforms: [.linux]))]),
        // Benchmarks that print figures (never timed tests): swift run -c release NAME
        .executableTarget(name: "engine-bench", dependencies: ["MQADomain", "MQAStore"], path: "Benchmarks/engine-bench"),
        .executableTarget(name: "sim-bench", dependencies: ["MQASimulator"], path: "Benchmarks/sim-bench"),
        .executableTarget(name: "recorder-bench", dependencies: ["MQARecorder"], path: "Benchmarks/recorder-bench"),
        .testTarget(name: "MQAStoreTests", dependencies: ["MQAStore"]),
        .testTarget(name: "MQADomainTests", dependencies: ["MQADomain", "MQASimulator", "MQAStore"], exclude: ["Fixtures"]),
        .testTarget(name: "MQASimulatorTests", dependencies: ["MQASimulator", "MQADomain", "MQAStore"]),
        // Goldens are read from the source tree (#filePath), never bundled.
        .testTarget(name: "MQAReportsTests", dependencies: ["MQAReports"], exclude: ["Golden"]),
        .testTarget(name: "MQACLITests", dependencies: ["MQACLI", "MQAQueries", "MQAStore"]),
        .testTarget(name: "MQARecorderTests", dependencies: ["MQARecorder", "MQADomain"], swiftSettings: [.swiftLanguageMode(.v6)]),
    ],
    // Swift 5 mode: the CLI keeps command tables and output sinks in statics,
    // used from one thread; the parallel tuning sweep shares only immutable
    // arrays.
    swiftLanguageModes: [.v5]
)
