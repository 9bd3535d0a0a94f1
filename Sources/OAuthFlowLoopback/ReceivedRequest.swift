#if NIO
import Foundation
import NIOCore
import NIOHTTP1

/// A request that arrived whole on a connection, as ``RequestReader`` passes it on.
struct ReceivedRequest: Sendable {
    let head: HTTPRequestHead
    /// The body, up to ``LoopbackReceiver/maximumBodySize``.
    let body: ByteBuffer
    /// Whether the body was longer than that (it is then answered 413).
    let tooLarge: Bool
}
#endif
