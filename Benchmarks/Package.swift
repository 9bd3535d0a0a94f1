// swift-tools-version: 6.0
// Benchmarks live in their own package so that `swift test` never builds or times them.
// Run: cd Benchmarks && swift run -c release RegistryBenchmark (or RefreshBenchmark)
import PackageDescription

let package = Package(
    name: "OAuthFlowBenchmarks",
    platforms: [.macOS(.v13)],
    // Named, so that the clone's folder name (`main`, `oauthflow`, anything) does not matter.
    dependencies: [.package(name: "OAuthFlow", path: "..")],
    targets: [
        .executableTarget(
            name: "RefreshBenchmark",
            dependencies: [.product(name: "OAuthFlow", package: "OAuthFlow")]
        ),
        .executableTarget(
            name: "RegistryBenchmark",
            dependencies: [
                .product(name: "OAuthFlow", package: "OAuthFlow"),
                .product(name: "OAuthFlowLint", package: "OAuthFlow"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
