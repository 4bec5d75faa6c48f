// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OakCompendium",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "oak", targets: ["oak"]),
        .executable(name: "oak-bench", targets: ["oak-bench"]),
        .library(name: "OakModels", targets: ["OakModels"]),
        .library(name: "OakStore", targets: ["OakStore"]),
        .library(name: "OakStoreKit", targets: ["OakStoreKit"]),
        .library(name: "OakStoreSQLite", targets: ["OakStoreSQLite"]),
        .library(name: "OakStorePostgres", targets: ["OakStorePostgres"]),
        .library(name: "OakServer", targets: ["OakServer"]),
        .library(name: "OakClient", targets: ["OakClient"]),
        .library(name: "OakSync", targets: ["OakSync"]),
        .library(name: "OakApp", targets: ["OakApp"]),
        .library(name: "OakAppUI", targets: ["OakAppUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/JohnSundell/Ink.git", from: "0.6.0"),
    ],
    targets: [
        // The wire types everyone shares, and the starter dataset (96 species and their taxa) a new database and
        // a new device begin with.
        .target(name: "OakModels", resources: [.copy("Resources/starter-dataset.json")]),
        // The store interface, free of bytes and SQL: repository protocols over models, and the write rules and
        // sync planning that work over models.
        .target(
            name: "OakStore",
            dependencies: ["OakModels", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // What both backends share below the interface: the SQL they run, the mapping between columns and fields,
        // the JSON written straight from rows (records, pull pages, the export, search), the search index, and the
        // protocol of the answers the server sends as bytes (`EncodedRepository`, `ServedStore`).
        .target(
            name: "OakStoreKit",
            dependencies: [
                "OakModels",
                "OakStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // What every store on SQLite shares, server and device: statements prepared once per connection, and
        // the process-wide SQLite settings (in C, OakSQLiteSettings: SQLite's configuration call is variadic).
        .target(name: "OakSQLiteSettings", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "OakSQLite", dependencies: ["OakSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift")]),
        // The embedded SQLite backend (GRDB): migrations of existing files, change-log triggers, backups.
        .target(
            name: "OakStoreSQLite",
            dependencies: [
                "OakModels",
                "OakStore",
                "OakStoreKit",
                "OakSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The PostgreSQL backend (PostgresNIO), for several `oak serve` instances on one database.
        .target(
            name: "OakStorePostgres",
            dependencies: [
                "OakModels",
                "OakStore",
                "OakStoreKit",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The web pages `oak serve` answers browsers with: mustache templates, markdown rendered without raw HTML.
        .target(
            name: "OakWeb",
            dependencies: [
                "OakModels",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Ink", package: "Ink"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/templates"), .copy("Resources/assets")]
        ),
        .target(
            name: "OakServer",
            dependencies: [
                "OakModels",
                "OakStore",
                "OakStoreKit",
                "OakWeb",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Resources/openapi.json")]
        ),
        .target(
            name: "OakClient",
            dependencies: [
                "OakModels",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
            ]
        ),
        .target(
            name: "OakSync",
            dependencies: [
                "OakModels",
                "OakClient",
                "OakSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "OakApp",
            dependencies: ["OakModels", "OakClient", "OakSync"]
        ),
        // SwiftUI views: every file is inside `#if canImport(SwiftUI) && os(iOS)`, so this target is empty on Linux (and macOS).
        .target(name: "OakAppUI", dependencies: ["OakApp", "OakSync", "OakModels"]),
        .target(
            name: "OakCLI",
            dependencies: [
                "OakModels",
                "OakStore", "OakStoreSQLite",
                "OakClient",
                "OakSync",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .executableTarget(
            name: "oak",
            dependencies: [
                "OakModels",
                "OakStore", "OakStoreKit", "OakStoreSQLite", "OakStorePostgres",
                "OakServer",
                "OakSync",
                "OakCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Benchmark-only code, out of the production targets: the synthetic load (`OakBench`) and the harness's
        // in-process commands (`oak-bench`, driven by scripts/bench).
        .target(
            name: "OakBench",
            dependencies: ["OakModels", "OakStore", "OakStoreKit", "OakStoreSQLite", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "oak-bench",
            dependencies: [
                "OakBench", "OakModels", "OakStore", "OakStoreKit", "OakStoreSQLite", "OakSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // Test-only code, out of the production targets. The helpers every test may use that need no server
        // (`OakTestBasics`), the sync simulator (`OakSimulation`, run by the sync tests and, in release over many
        // seeds, by `oak-simulate`: its own product, so scripts/simulate builds only what the simulator needs),
        // and the helpers that start servers (`OakTestSupport`).
        .target(name: "OakTestBasics", dependencies: ["OakStore", "OakStoreSQLite", "OakSync"]),
        .target(
            name: "OakSimulation",
            dependencies: [
                "OakSync", "OakClient", "OakStore", "OakStoreKit", "OakStoreSQLite", "OakModels", "OakTestBasics",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "oak-simulate",
            dependencies: ["OakSimulation", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .target(
            name: "OakTestSupport",
            dependencies: [
                "OakTestBasics",
                "OakServer", "OakStore", "OakStoreKit", "OakStoreSQLite", "OakStorePostgres", "OakClient", "OakSync", "OakModels",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "OakCLITests",
            dependencies: [
                // The binaries are what these tests run; depending on them builds them first.
                "oak", "oak-bench", "oak-simulate", "OakStore", "OakStoreSQLite", "OakModels", "OakTestSupport", "OakTestBasics",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "OakModelsTests", dependencies: ["OakModels"]),
        .testTarget(name: "OakClientTests", dependencies: ["OakClient", "OakModels", "OakTestSupport"]),
        .testTarget(
            name: "OakBenchTests",
            dependencies: [
                "OakBench", "OakStore", "OakStoreSQLite", "OakModels", "OakTestSupport", "OakTestBasics", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "OakStoreTests",
            dependencies: [
                "OakStore", "OakStoreKit", "OakStoreSQLite", "OakStorePostgres", "OakModels", "OakTestSupport", "OakTestBasics", "OakSQLite",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "OakServerTests",
            dependencies: [
                "OakServer", "OakStore", "OakStoreKit", "OakStoreSQLite", "OakStorePostgres", "OakModels", "OakTestSupport", "OakTestBasics",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Compatibility/Fixtures")]
        ),
        .testTarget(
            name: "OakAppTests",
            dependencies: [
                "OakApp", "OakSync", "OakClient", "OakServer", "OakStore", "OakStoreKit", "OakStoreSQLite", "OakModels", "OakTestSupport", "OakTestBasics",
            ]
        ),
        .testTarget(
            name: "OakSyncTests",
            dependencies: [
                "OakSync", "OakClient", "OakServer", "OakStore", "OakStoreKit", "OakStoreSQLite", "OakModels", "OakTestSupport", "OakTestBasics",
                "OakSimulation",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
