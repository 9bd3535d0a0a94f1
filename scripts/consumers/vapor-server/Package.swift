// swift-tools-version: 6.1
// A Vapor server: sign-in routes, sessions in PostgreSQL, security events.
import PackageDescription

let package = Package(
    name: "ConsumerVaporServer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "{{OAUTHFLOW}}", traits: ["Vapor", "Postgres"]),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
    ],
    targets: [
        .target(
            name: "ConsumerVaporServer",
            dependencies: [
                .product(name: "OAuthFlow", package: "{{IDENTITY}}"), .product(name: "OAuthFlowVapor", package: "{{IDENTITY}}"),
                .product(name: "OAuthFlowPostgres", package: "{{IDENTITY}}"),
                .product(name: "OAuthFlowSecurityEvents", package: "{{IDENTITY}}"), .product(name: "Vapor", package: "vapor"),
            ]
        )
    ]
)
