// swift-tools-version: 6.1
// An iOS or macOS app that adds OAuthFlow with its defaults (Xcode's "Add Package") and uses OAuthFlow and OAuthFlowApple.
import PackageDescription

let package = Package(
    name: "ConsumerApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "{{OAUTHFLOW}}")],
    targets: [
        .target(
            name: "ConsumerApp",
            dependencies: [.product(name: "OAuthFlow", package: "{{IDENTITY}}"), .product(name: "OAuthFlowApple", package: "{{IDENTITY}}")]
        )
    ]
)
