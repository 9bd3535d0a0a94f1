#if NIO  // SwiftNIO is in the graph only with the package trait NIO (Package.swift)
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OAuthFlow

/// A request read whole on its connection.
struct WholeRequest: Sendable {
    let head: HTTPRequestHead
    let body: ByteBuffer
    /// Whether the body was longer than ``SimulatedProviderServer/maximumBodySize`` (the rest was dropped).
    let tooLarge: Bool
}
#endif
