#if NIO  // SwiftNIO is in the graph only with the package trait NIO (Package.swift)
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP server on 127.0.0.1 that answers every connection with a scripted, hostile byte stream:
/// the failures a real authorization server cannot be made to produce.
public final class HostileServer: Sendable {
    public enum Script: Sendable {
        /// Sends `head`, then one byte of `filler` every `interval`, forever.
        case drip(head: String, interval: TimeAmount)
        /// Sends `head`, then `chunk` as fast as the client reads, forever.
        case endless(head: String, chunk: String)
        /// Sends `bytes`, then closes.
        case fixed(Data)
        /// Reads the request and never answers.
        case silent
        /// Sends what `answer` makes of the server's own port, then closes: a document that names its own address
        /// (a discovery document's `issuer`).
        case fixedForPort(@Sendable (_ port: Int) -> Data)
    }

    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let requests: NIOLockedValueBox<[String]>

    /// What the clients sent, one string per connection (the request head and whatever body came).
    public var received: [String] { requests.withLockedValue { $0 } }

    public init(_ script: Script) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let requests = NIOLockedValueBox<[String]>([])
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(script: script, requests: requests))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()  // blocks: a bind on the server's own event loop, milliseconds
        self.group = group
        self.channel = channel
        self.requests = requests
        self.port = channel.localAddress?.port ?? 0
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)/token")! }

    public func stop() {
        try? channel.close().wait()  // blocks: a close on the server's own event loop, milliseconds
        try? group.syncShutdownGracefully()  // blocks: its one thread ends once its channels are closed, milliseconds
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let script: Script
        let requests: NIOLockedValueBox<[String]>
        var index: Int?
        var started = false

        init(script: Script, requests: NIOLockedValueBox<[String]>) {
            self.script = script
            self.requests = requests
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            let sofar = requests.withLockedValue { all -> String in
                if let index { all[index] += text } else { index = all.count; all.append(text) }
                return all[index ?? 0]
            }
            guard !started else { return }
            // A fixed answer waits for the whole request (head and Content-Length body), as a server would.
            if case .fixed = script, !Self.isComplete(sofar) { return }
            if case .fixedForPort = script, !Self.isComplete(sofar) { return }
            started = true
            switch script {
            case let .drip(head, interval):
                write(head, context)
                drip(context, every: interval)
            case let .endless(head, chunk):
                write(head, context)
                flood(context, chunk: chunk)
            case let .fixed(bytes):
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes))).whenComplete { _ in bound.value.close(promise: nil) }
            case let .fixedForPort(answer):
                let bytes = answer(context.channel.localAddress?.port ?? 0)
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes))).whenComplete { _ in bound.value.close(promise: nil) }
            case .silent:
                break
            }
        }

        /// Whether `request` holds a whole head and as much body as its Content-Length says.
        static func isComplete(_ request: String) -> Bool {
            guard let end = request.range(of: "\r\n\r\n") else { return false }
            let head = request[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return request[end.upperBound...].utf8.count >= length
        }

        private func write(_ text: String, _ context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
        }

        private func drip(_ context: ChannelHandlerContext, every interval: TimeAmount) {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: interval) { [self] in
                let context = loopBound.value
                guard context.channel.isActive else { return }
                write("x", context)
                drip(context, every: interval)
            }
        }

        private func flood(_ context: ChannelHandlerContext, chunk: String) {
            guard context.channel.isActive else { return }
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: chunk))).whenSuccess { [self] in
                flood(loopBound.value, chunk: chunk)
            }
        }
    }
}
#endif
