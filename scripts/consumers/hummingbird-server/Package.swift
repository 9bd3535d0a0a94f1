// swift-tools-version: 6.1
// A Hummingbird server: sign-in routes and security events.
import PackageDescription

let package = Package(
    name: "ConsumerHummingbirdServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "{{OAUTHFLOW}}", traits: ["Hummingbird"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "ConsumerHummingbirdServer",
            dependencies: [
                .product(name: "OAuthFlow", package: "{{IDENTITY}}"), .product(name: "OAuthFlowHummingbird", package: "{{IDENTITY}}"),
                .product(name: "OAuthFlowSecurityEvents", package: "{{IDENTITY}}"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        )
    ]
)
