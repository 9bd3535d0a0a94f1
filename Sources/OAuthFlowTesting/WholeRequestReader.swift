#if NIO  // SwiftNIO is in the graph only with the package trait NIO (Package.swift)
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OAuthFlow

/// Reads a connection's first request as its parts arrive and passes it on whole; the body is kept up to
/// ``SimulatedProviderServer/maximumBodySize``.
final class WholeRequestReader: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = WholeRequest

    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false
    private var done = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch Self.unwrapInboundIn(data) {
        case let .head(requestHead):
            head = requestHead
        case var .body(chunk):
            if body.readableBytes + chunk.readableBytes > SimulatedProviderServer.maximumBodySize {
                tooLarge = true
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            done = true
            context.fireChannelRead(Self.wrapInboundOut(WholeRequest(head: head, body: body, tooLarge: tooLarge)))
        }
    }
}
#endif
