// swift-tools-version: 6.1
// An MCP client host on the MCP Swift SDK, signing in to MCP servers.
import PackageDescription

let package = Package(
    name: "ConsumerMCPHost",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "{{OAUTHFLOW}}", traits: ["MCP"])],
    targets: [
        .target(
            name: "ConsumerMCPHost",
            dependencies: [.product(name: "OAuthFlow", package: "{{IDENTITY}}"), .product(name: "OAuthFlowMCP", package: "{{IDENTITY}}")]
        )
    ]
)
