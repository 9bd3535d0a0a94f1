// swift-tools-version: 6.0
// The web sign-in example: its own package, so building OAuthFlow never builds it.
import PackageDescription

let package = Package(
    name: "WebSignInExample",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, so that the clone's folder name (`main`, `oauthflow`, anything) does not matter.
        .package(name: "OAuthFlow", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "WebSignInExample",
            dependencies: [
                .product(name: "OAuthFlow", package: "OAuthFlow"),
                .product(name: "OAuthFlowWeb", package: "OAuthFlow"),
                .product(name: "OAuthFlowHummingbird", package: "OAuthFlow"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
