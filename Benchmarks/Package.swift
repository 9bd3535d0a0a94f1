// swift-tools-version: 6.1
// Benchmarks live in their own package so that `swift test` never builds or times them.
// Run: cd Benchmarks && swift run -c release RegistryBenchmark (or RefreshBenchmark, WebBenchmark, DPoPBenchmark, LintStagesBenchmark);
// bash Benchmarks/service-tokens.sh runs ServiceTokenBenchmark against its token server;
// bash Benchmarks/api-protection.sh runs APIProtectionBenchmark (its server under wrk, then `micro`).
import PackageDescription

let package = Package(
    name: "OAuthFlowBenchmarks",
    platforms: [.macOS(.v13)],
    // Named, so that the clone's folder name (`main`, `oauthflow`, anything) does not matter.
    dependencies: [
        // WebBenchmark and APIProtectionBenchmark serve through OAuthFlowHummingbird; on Linux the transport is
        // async-http-client's, as a server's is (the package traits, Docs/design.md).
        .package(name: "OAuthFlow", path: "..", traits: ["Hummingbird", "NIO"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // APIProtectionBenchmark's /jwt-instrumented: in-process metrics and tracing backends.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .executableTarget(
            name: "RefreshBenchmark",
            dependencies: [.product(name: "OAuthFlow", package: "OAuthFlow")]
        ),
        .executableTarget(
            name: "ServiceTokenBenchmark",
            dependencies: [.product(name: "OAuthFlow", package: "OAuthFlow")]
        ),
        .executableTarget(
            name: "DPoPBenchmark",
            dependencies: [.product(name: "OAuthFlow", package: "OAuthFlow"), .product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(
            name: "RegistryBenchmark",
            dependencies: [
                .product(name: "OAuthFlow", package: "OAuthFlow"),
                .product(name: "OAuthFlowLint", package: "OAuthFlow"),
            ]
        ),
        .executableTarget(
            name: "LintStagesBenchmark",
            dependencies: [
                .product(name: "OAuthFlow", package: "OAuthFlow"),
                .product(name: "OAuthFlowLint", package: "OAuthFlow"),
            ]
        ),
        .executableTarget(
            name: "WebBenchmark",
            dependencies: [
                .product(name: "OAuthFlow", package: "OAuthFlow"),
                .product(name: "OAuthFlowWeb", package: "OAuthFlow"),
                .product(name: "OAuthFlowHummingbird", package: "OAuthFlow"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "APIProtectionBenchmark",
            dependencies: [
                .product(name: "OAuthFlow", package: "OAuthFlow"),
                .product(name: "OAuthFlowHummingbird", package: "OAuthFlow"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
