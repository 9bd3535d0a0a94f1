// swift-tools-version: 6.1
import PackageDescription

/// Where the launcher's link looks first on Linux (see the OAuthFlowLauncher target).
let launcherStaticLibraries = String(#filePath.dropLast("Package.swift".count)) + "Sources/OAuthFlowLauncher/StaticLibraries"

// App Store Connect refuses an app whose code calls stat, fstat or lstat (Apple's "file timestamp" APIs) unless a
// privacy manifest gives the reason: the targets that call them carry PrivacyInfo.xcprivacy (C617.1, files inside the
// app's container) on Apple platforms. Elsewhere it is left out, as swift-crypto does: a resource would give
// OAuthFlowFiles, which the launcher keeps free of Foundation, a resource bundle and Foundation.
#if canImport(Darwin)
let privacyManifest: [Resource] = [.copy("PrivacyInfo.xcprivacy")]
let privacyManifestExcluded: [String] = []
#else
let privacyManifest: [Resource] = []
let privacyManifestExcluded = ["PrivacyInfo.xcprivacy"]
#endif

// What the core's two test targets (OAuthFlowTests, OAuthFlowEngineTests) use. No executable: the tests run the built
// StoreWriter, RefreshWorker and oauthflow as processes, which `swift build --build-tests` makes all the same; depending
// on them made the largest test target wait for their links before it began to compile.
let coreTestDependencies: [Target.Dependency] = [
    "OAuthFlowTestSupport", "OAuthFlow", "OAuthFlowLoopback",
    .product(name: "JWTKit", package: "jwt-kit"),
    .product(name: "_CryptoExtras", package: "swift-crypto"),
    .product(name: "Yams", package: "Yams"),
    .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "AsyncHTTPClient", package: "async-http-client"),
    // The in-memory backends the operations tests count and trace with.
    .product(name: "MetricsTestKit", package: "swift-metrics"),
    .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
]

let package = Package(
    name: "OAuthFlow",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "OAuthFlow", targets: ["OAuthFlow"]),
        .library(name: "OAuthFlowLint", targets: ["OAuthFlowLint"]),
        .library(name: "OAuthFlowLoopback", targets: ["OAuthFlowLoopback"]),
        .library(name: "OAuthFlowPostgres", targets: ["OAuthFlowPostgres"]),
        .library(name: "OAuthFlowWeb", targets: ["OAuthFlowWeb"]),
        .library(name: "OAuthFlowSecurityEvents", targets: ["OAuthFlowSecurityEvents"]),
        .library(name: "OAuthFlowHummingbird", targets: ["OAuthFlowHummingbird"]),
        .library(name: "OAuthFlowVapor", targets: ["OAuthFlowVapor"]),
        .library(name: "OAuthFlowTesting", targets: ["OAuthFlowTesting"]),
        // Everything Apple-only (Docs/apple.md): the app sign-in, the keychain store, the URLRequest authorizer, Secure
        // Enclave DPoP keys. Its logic is compiled and tested on Linux; its Apple calls only in an Apple build, and
        // type-checked on Linux against shims (scripts/apple-typecheck.sh).
        .library(name: "OAuthFlowApple", targets: ["OAuthFlowApple"]),
        .library(name: "OAuthFlowMCPAuth", targets: ["OAuthFlowMCPAuth"]),
        .library(name: "OAuthFlowMCP", targets: ["OAuthFlowMCP"]),
        .library(name: "OAuthFlowMCPHummingbird", targets: ["OAuthFlowMCPHummingbird"]),
        .library(name: "OAuthFlowMCPVapor", targets: ["OAuthFlowMCPVapor"]),
        .executable(name: "oauthflow", targets: ["oauthflow"]),
        // Installed as `oauthflow`, with the full command beside it as `oauthflow-full`: it answers a valid
        // token itself and runs the full command for everything else (README, Install).
        .executable(name: "oauthflow-launcher", targets: ["OAuthFlowLauncher"]),
    ],
    // An app pays only for what it uses (Docs/design.md, "Package traits"): each heavy part is a trait, off by default,
    // and SwiftPM leaves a package out of a consumer's resolution when every target that names it names it under a
    // trait the consumer has not enabled. With the defaults, OAuthFlow and OAuthFlowApple resolve ten packages. A
    // product whose trait is off fails to build with one sentence naming the trait. The test command enables them all.
    traits: [
        .default(enabledTraits: []),
        .trait(
            name: "NIO",
            description:
                "SwiftNIO: async-http-client as the transport on Linux (mutual TLS included), the loopback redirect receiver (OAuthFlowLoopback), OAuthFlowMCPAuth, and OAuthFlowTesting's SimulatedProviderServer."
        ),
        .trait(name: "Postgres", description: "OAuthFlowPostgres: sessions shared by a server's instances in PostgreSQL.", enabledTraits: ["NIO"]),
        .trait(name: "Hummingbird", description: "OAuthFlowHummingbird: the web sign-in routes and API protection for Hummingbird 2.", enabledTraits: ["NIO"]),
        .trait(name: "Vapor", description: "OAuthFlowVapor: the web sign-in routes and API protection for Vapor 4.", enabledTraits: ["NIO"]),
        .trait(
            name: "MCP",
            description:
                "OAuthFlowMCP: the MCP Swift SDK's transport, authorized, and protected MCP servers (with Hummingbird: OAuthFlowMCPHummingbird; with Vapor: OAuthFlowMCPVapor).",
            enabledTraits: ["NIO"]),
        .trait(name: "CLI", description: "The oauthflow command (swift-argument-parser).", enabledTraits: ["NIO"]),
        .trait(name: "Prometheus", description: "The web sign-in example's /metrics (swift-prometheus)."),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Already built for postgres-nio and hummingbird: the PostgreSQL store and the web example run as its `Service`s.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Only OAuthFlowVapor, its tests and its example use it: the CLI and the other products never build it.
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        // Only OAuthFlowMCP and its tests use it: the core, the CLI and the other products never build it. An app
        // that adds this package resolves it all the same (SwiftPM resolves what every product needs), so the pin is
        // a range, not one version: any 0.12 release from 0.12.1 (before 1.0 a minor release may break the API).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", .upToNextMinor(from: "0.12.1")),
        // Metrics and spans (Docs/operations.md): the API packages only, which the host's backend plugs into through
        // OAuthEnvironment; already built for hummingbird, vapor and postgres-nio.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Only the web sign-in example uses it (its /metrics): no library product depends on it.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // Reading a stored session with the standard library and the C library alone: what the `oauthflow`
        // launcher answers a valid token with, and what FileTokenStore reads and names its files with.
        .target(name: "OAuthFlowFiles", exclude: privacyManifestExcluded, resources: privacyManifest),
        .target(
            name: "OAuthFlow",
            dependencies: [
                "OAuthFlowFiles",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
                // RSA DPoP keys are generated with it; jwt-kit already builds it.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // Linux HTTP: deadlines, streamed bodies with a cap, no implicit decompression, and no
                // FoundationNetworking/libcurl to load at start-up. Apple platforms use URLSession.
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux, .android], traits: ["NIO"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux, .android], traits: ["NIO"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux, .android], traits: ["NIO"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux, .android], traits: ["NIO"])),
                // Mutual TLS (RFC 8705): async-http-client already builds it.
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux, .android], traits: ["NIO"])),
                // What the library reports, to the backends a host hands to OAuthEnvironment (no-ops by default).
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            exclude: privacyManifestExcluded,
            resources: [.copy("BundledProviders")] + privacyManifest
        ),
        .target(
            name: "OAuthFlowLint",
            dependencies: ["OAuthFlow"],
            exclude: privacyManifestExcluded,
            resources: privacyManifest
        ),
        .target(
            name: "OAuthFlowLoopback",
            dependencies: [
                "OAuthFlow",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["NIO"])),
            ]
        ),
        // Sessions shared by many instances; its own product, so the CLI never builds PostgresNIO.
        .target(
            name: "OAuthFlowPostgres",
            dependencies: [
                "OAuthFlow",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Postgres"])),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // "Sign in with …" for web servers: the framework-neutral part (sealed pending cookie, start,
        // callback, result), and its Hummingbird routes in a target of their own.
        .target(
            name: "OAuthFlowWeb",
            dependencies: [
                "OAuthFlow",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Security events a provider sends (RFC 8417: Shared Signals, Google's Cross-Account Protection, Sign in with
        // Apple's notifications): verified, acted on in the session store, and handed to the host.
        .target(
            name: "OAuthFlowSecurityEvents",
            dependencies: ["OAuthFlow", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "OAuthFlowHummingbird",
            dependencies: [
                "OAuthFlow", "OAuthFlowWeb", "OAuthFlowSecurityEvents",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Hummingbird"])),
            ]
        ),
        // The same sign-in routes and API protection for Vapor 4: a thin adapter over OAuthFlowWeb and ProtectedResource.
        .target(
            name: "OAuthFlowVapor",
            dependencies: [
                "OAuthFlow", "OAuthFlowWeb", "OAuthFlowSecurityEvents",
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
            ]
        ),
        // For hosts' tests: an in-process simulated provider behind HTTPTransport, clocks and scripted transports.
        .target(
            name: "OAuthFlowTesting",
            dependencies: [
                "OAuthFlow",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // SimulatedProviderServer serves the provider over HTTP on 127.0.0.1 (OAuthFlowLoopback already builds NIO).
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["NIO"])),
            ]
        ),
        // Sign-in to MCP servers from their URL (Model Context Protocol authorization) without the MCP SDK: discovery,
        // registration, the loopback sign-in with `resource`, sessions, step-up. The CLI's `oauthflow mcp` uses it.
        .target(
            name: "OAuthFlowMCPAuth",
            dependencies: [
                "OAuthFlow", "OAuthFlowLoopback", "OAuthFlowLint",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The same for the MCP Swift SDK's HTTP client transport (MCPAuthorizer), and protected MCP servers.
        .target(
            name: "OAuthFlowMCP",
            dependencies: [
                "OAuthFlow", "OAuthFlowLoopback", "OAuthFlowMCPAuth",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A protected MCP server's routes on Hummingbird 2 and on Vapor 4: each builds only its own framework, and
        // OAuthFlowMCP (the client too) builds neither.
        .target(
            name: "OAuthFlowMCPHummingbird",
            dependencies: [
                "OAuthFlow", "OAuthFlowMCP",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
            ]
        ),
        .target(
            name: "OAuthFlowMCPVapor",
            dependencies: [
                "OAuthFlow", "OAuthFlowMCP",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
            ]
        ),
        // The launcher links OAuthFlowFiles alone: no Foundation, no argument parser, no HTTP stack. On Linux its
        // link finds StaticLibraries/libstdc++.so first, a linker script that takes the C++ library's static archive:
        // built with --static-swift-stdlib (the README's install) it then loads only the C library at run time, and
        // answers git with a third less CPU time (Docs/benchmarks.md, "Hot paths"). A build with the shared Swift
        // runtime takes nothing from the archive (that runtime loads libstdc++.so.6 itself).
        .executableTarget(
            name: "OAuthFlowLauncher",
            dependencies: ["OAuthFlowFiles"],
            exclude: ["StaticLibraries"],
            linkerSettings: [.unsafeFlags(["-L", launcherStaticLibraries], .when(platforms: [.linux]))]
        ),
        .executableTarget(
            name: "oauthflow",
            dependencies: [
                // Not linked: building `oauthflow` builds the launcher beside it.
                "OAuthFlowLauncher",
                // The launcher's files (its memos) and safe reads, which the CLI writes and reads as the launcher does.
                "OAuthFlowFiles",
                "OAuthFlow",
                "OAuthFlowLint",
                "OAuthFlowLoopback",
                // `oauthflow mcp`: MCP authorization without the MCP SDK, which the CLI never builds.
                "OAuthFlowMCPAuth",
                .product(name: "Yams", package: "Yams"),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            // As the launcher's: the C++ library linked in, not loaded at each start (Docs/benchmarks.md). And none of
            // its 46,000 symbols exported: the Swift runtime's `dladdr` at every start scanned them all (a fifth of
            // a start's CPU time, Docs/benchmarks.md). A crash's stack trace then gives offsets into the binary, which
            // its symbol table, still in the file, names (`addr2line -f -e oauthflow`).
            linkerSettings: [
                .unsafeFlags(["-L", launcherStaticLibraries, "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))
            ]
        ),
        // The web sign-in examples (Examples/WebSignIn, declared at the end of this file, and Examples/VaporSignIn):
        // targets of this package, so that the browser test drives apps built in the same build as everything else,
        // not a second compile of the graph. What both share: their options and their pages.
        .target(
            name: "ExampleSupport",
            dependencies: ["OAuthFlow", "OAuthFlowWeb", .product(name: "Logging", package: "swift-log")],
            path: "Examples/Shared/Sources/ExampleSupport"
        ),
        // The same example on Vapor (Examples/VaporSignIn), served by the browser test after the Hummingbird one.
        .executableTarget(
            name: "VaporSignInExample",
            dependencies: [
                "OAuthFlow", "OAuthFlowWeb", "OAuthFlowVapor", "ExampleSupport",
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Vapor"])),
            ],
            path: "Examples/VaporSignIn/Sources/VaporSignInExample"
        ),
        .executableTarget(
            name: "StoreWriter",
            dependencies: ["OAuthFlow", "StoreHooks"],
            path: "Tests/StoreWriter"
        ),
        .executableTarget(
            name: "RefreshWorker",
            dependencies: ["OAuthFlow", "StoreHooks"],
            path: "Tests/RefreshWorker"
        ),
        .target(
            name: "StoreHooks",
            dependencies: ["OAuthFlow"],
            path: "Tests/StoreHooks"
        ),
        .executableTarget(
            name: "PostgresWorker",
            dependencies: [
                "OAuthFlow", "OAuthFlowPostgres", "StoreHooks",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/PostgresWorker"
        ),
        // What the test targets share: the process runner, the authorization server as the tests see it,
        // the descriptor builder, clocks, transports, temporary directories.
        .target(
            name: "OAuthFlowTestSupport",
            dependencies: [
                "OAuthFlow", "OAuthFlowTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
            ],
            path: "Tests/OAuthFlowTestSupport"
        ),
        .target(
            name: "OAuthFlowApple",
            dependencies: ["OAuthFlow", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "OAuthFlowAppleTests",
            dependencies: ["OAuthFlowApple", "OAuthFlow", "OAuthFlowTesting", "OAuthFlowTestSupport"]
        ),
        .testTarget(
            name: "OAuthFlowSecurityEventsTests",
            dependencies: ["OAuthFlowSecurityEvents", "OAuthFlow", "OAuthFlowFiles", "OAuthFlowTesting", "OAuthFlowTestSupport"]
        ),
        .testTarget(
            name: "OAuthFlowFilesTests",
            dependencies: ["OAuthFlowFiles", "OAuthFlow", "OAuthFlowTestSupport"]
        ),
        .testTarget(
            name: "OAuthFlowTests",
            dependencies: coreTestDependencies,
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "OAuthFlowEngineTests",
            // The client engine's and the protected resource's tests, split from OAuthFlowTests so that the two compile
            // side by side at the end of the build instead of one core compiling all of them alone (Docs/benchmarks.md).
            dependencies: coreTestDependencies,
        ),
        // The examples of README.md and Docs/, compiled and run: they use every product.
        .testTarget(
            name: "OAuthFlowDocumentationTests",
            dependencies: [
                "OAuthFlowTestSupport", "OAuthFlow", "OAuthFlowLoopback", "OAuthFlowPostgres", "OAuthFlowWeb", "OAuthFlowHummingbird", "oauthflow",
                "OAuthFlowSecurityEvents",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowPostgresTests",
            dependencies: [
                // No PostgresWorker: the tests run it as a process, which `swift build --build-tests` builds all the same.
                "OAuthFlow", "OAuthFlowPostgres", "OAuthFlowTestSupport", "OAuthFlowWeb", "OAuthFlowHummingbird",
                "OAuthFlowSecurityEvents", "OAuthFlowTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Back-channel logout across instances: the provider posts to an app that listens.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowWebTests",
            dependencies: [
                "OAuthFlow", "OAuthFlowWeb", "OAuthFlowHummingbird", "OAuthFlowTestSupport", "OAuthFlowSecurityEvents", "OAuthFlowTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Docs/operations.md's /metrics and traces, run as the page shows them.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowVaporTests",
            dependencies: [
                "OAuthFlow", "OAuthFlowWeb", "OAuthFlowVapor", "OAuthFlowTestSupport", "OAuthFlowSecurityEvents", "OAuthFlowTesting",
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowLintTests",
            dependencies: ["OAuthFlowLint", "OAuthFlow", "OAuthFlowTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "OAuthFlowLoopbackTests",
            dependencies: [
                "OAuthFlowLoopback", "OAuthFlow", "OAuthFlowTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowTestingTests",
            dependencies: [
                "OAuthFlowTesting", "OAuthFlow",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowMCPTests",
            dependencies: [
                "OAuthFlowMCP", "OAuthFlowMCPAuth", "OAuthFlow", "OAuthFlowLoopback", "OAuthFlowTesting", "OAuthFlowTestSupport",
                .product(name: "MCP", package: "swift-sdk"),
                // The protected server's routes, driven in process by each framework's test client.
                "OAuthFlowMCPHummingbird", "OAuthFlowMCPVapor",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "OAuthFlowCLITests",
            dependencies: ["oauthflow", "OAuthFlow", "OAuthFlowFiles", "OAuthFlowTestSupport", "OAuthFlowTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The Hummingbird example is declared where it runs, on Linux (scripts/browser.sh serves it), and nowhere else: its
// HummingbirdAuth sessions need macOS 14, iOS 17 and tvOS 17 (hummingbird-auth's own floor) and its Hummingbird 2 code
// macOS 14, above this package's floor (macOS 13, iOS 16), and SwiftPM refuses to plan any build of a package that
// holds a target depending on a product with a higher floor than its own. Declared only here, neither the example nor
// hummingbird-auth is part of a Mac's `swift build` or of an app's resolution.
#if os(Linux)
package.dependencies.append(.package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"))
package.targets.append(
    .executableTarget(
        name: "WebSignInExample",
        dependencies: [
            "OAuthFlow", "OAuthFlowWeb", "OAuthFlowHummingbird", "OAuthFlowPostgres", "ExampleSupport",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
            .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
            .product(name: "HummingbirdAuth", package: "hummingbird-auth", condition: .when(traits: ["Hummingbird"])),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Hummingbird"])),
            .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Prometheus"])),
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ],
        path: "Examples/WebSignIn/Sources/WebSignInExample"
    )
)
#endif
