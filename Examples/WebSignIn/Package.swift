// swift-tools-version: 6.0
// The web sign-in example: its own package, so building OAuthFlow never builds it.
import Foundation
import PackageDescription

// The OAuthFlow checkout two levels up; SwiftPM names a path dependency after its folder.
let oauthflow = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
let oauthflowPackage = oauthflow.lastPathComponent.lowercased()

let package = Package(
    name: "WebSignInExample",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: oauthflow.path),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "WebSignInExample",
            dependencies: [
                .product(name: "OAuthFlow", package: oauthflowPackage),
                .product(name: "OAuthFlowWeb", package: oauthflowPackage),
                .product(name: "OAuthFlowHummingbird", package: oauthflowPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
