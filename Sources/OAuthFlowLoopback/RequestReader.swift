#if NIO
import Foundation
import NIOCore
import NIOHTTP1

/// Reads a connection's request on the event loop as its parts arrive and passes it on whole, so that its task
/// gets one message and reading never waits for that task.
///
/// Keeps at most ``LoopbackReceiver/maximumBodySize`` of the body (the rest is read and dropped) and marks the
/// request as arrived in ``ConnectionTable`` with its last part: the deadline never closes a connection whose
/// request came in time, however late its task takes it. Only the first request counts: every answer closes the
/// connection.
final class RequestReader: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = ReceivedRequest

    private let connections: ConnectionTable
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false
    private var received = false

    init(connections: ConnectionTable) {
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !received else { return }
        switch Self.unwrapInboundIn(data) {
        case let .head(requestHead):
            head = requestHead
        case var .body(chunk):
            if body.readableBytes + chunk.readableBytes > LoopbackReceiver.maximumBodySize {
                tooLarge = true
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            received = true
            connections.markRequestReceived(context.channel)
            context.fireChannelRead(Self.wrapInboundOut(ReceivedRequest(head: head, body: body, tooLarge: tooLarge)))
        }
    }
}
#endif
