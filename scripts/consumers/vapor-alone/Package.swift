// swift-tools-version: 6.1
// Vapor and nothing else: the graph the Vapor server's is measured against.
import PackageDescription

let package = Package(
    name: "ConsumerVaporAlone",
    platforms: [.macOS(.v13)],
    dependencies: [.package(url: "https://github.com/vapor/vapor.git", from: "4.122.3")],
    targets: [.target(name: "ConsumerVaporAlone", dependencies: [.product(name: "Vapor", package: "vapor")])]
)
