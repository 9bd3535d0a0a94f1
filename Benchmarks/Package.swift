// swift-tools-version: 6.0
// Benchmarks live in their own package so that `swift test` never builds or times them.
// Run: cd Benchmarks && swift run -c release RegistryBenchmark (or RefreshBenchmark)
import PackageDescription

let package = Package(
    name: "OAuthFlowBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "RefreshBenchmark",
            dependencies: [.product(name: "OAuthFlow", package: "main")]
        ),
        .executableTarget(
            name: "RegistryBenchmark",
            dependencies: [
                .product(name: "OAuthFlow", package: "main"),
                .product(name: "OAuthFlowLint", package: "main"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
