import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request that reached the redirect path.
public struct LoopbackRequest: Sendable {
    /// `GET` (query response mode) or `POST` (`form_post`).
    public let method: String
    /// The full redirect URL as the browser requested it, query included.
    public let url: URL
    /// The body, for `form_post`.
    public let body: Data
}

/// What to answer a request on the redirect path with.
public struct LoopbackResponse: Sendable {
    public var status: Int
    public var html: String
    /// Whether this request ends the wait (a valid callback, successful or not).
    public var finishes: Bool

    public init(status: Int, html: String, finishes: Bool) {
        self.status = status
        self.html = html
        self.finishes = finishes
    }
}

/// Why the receiver could not start or stopped waiting.
public struct LoopbackError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        public static let portInUse = Code("port_in_use")
        public static let bindFailed = Code("bind_failed")
        public static let timedOut = Code("timed_out")
        public static let notLoopback = Code("not_loopback")
    }

    public let code: Code
    public let message: String

    public var description: String { message }
}

/// Receives the authorization redirect on a loopback address (RFC 8252 §7.3).
///
/// - Binds `127.0.0.1` or `::1` only, on an ephemeral port (0) or a fixed one.
/// - Requests to the redirect path (GET, or POST for `form_post`) go to the
///   handler, one at a time; its answer says whether the wait is over. A request
///   the handler rejects (a forged callback) does not end the wait.
/// - Other paths get 404 and other methods 405; neither ends the wait.
/// - After the finishing callback, further callbacks get 410.
/// - Every answer carries `Cache-Control: no-store` and `Referrer-Policy: no-referrer`,
///   so the code in the URL does not leak from the page.
public final class LoopbackReceiver: @unchecked Sendable {
    /// Bodies larger than this are refused (a `form_post` callback is a few hundred bytes).
    public static let maximumBodySize = 64 * 1024

    public let host: String
    public let port: Int
    public let path: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let inbox: Inbox

    /// The redirect URI to register and send: `http://HOST:PORT/PATH`.
    public var redirectURI: URL {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        // The host and path were validated when binding, so this always parses.
        return URL(string: "http://\(hostPart):\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    private init(host: String, port: Int, path: String, channel: any Channel, group: MultiThreadedEventLoopGroup, inbox: Inbox) {
        self.host = host
        self.port = port
        self.path = path
        self.channel = channel
        self.group = group
        self.inbox = inbox
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: `127.0.0.1` or `::1` (brackets allowed); anything else is refused.
    ///   - port: 0 for an ephemeral port, or a fixed port.
    ///   - path: The redirect path, such as `/callback`.
    /// - Throws: ``LoopbackError`` `portInUse` when a fixed port is taken, `notLoopback`
    ///   for a non-loopback host, `bindFailed` otherwise.
    public static func start(host: String = "127.0.0.1", port: Int = 0, path: String = "/callback") async throws -> LoopbackReceiver {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard bare == "127.0.0.1" || bare == "::1" else {
            throw LoopbackError(code: .notLoopback, message: "the redirect receiver listens only on 127.0.0.1 or [::1], not \(host)")
        }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw LoopbackError(code: .bindFailed, message: "the redirect path must start with / and have no query or fragment: \(path)")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let inbox = Inbox(path: path)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 0)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(CallbackHandler(inbox: inbox))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: bare, port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                throw LoopbackError(code: .portInUse, message: "port \(port) on \(bare) is already in use; close what holds it or choose another port")
            }
            throw LoopbackError(code: .bindFailed, message: "cannot listen on \(bare):\(port): \(text)")
        }
        let actualPort = channel.localAddress?.port ?? port
        return LoopbackReceiver(host: bare, port: actualPort, path: path, channel: channel, group: group, inbox: inbox)
    }

    /// Waits for the callback, passing each request on the redirect path to `handler` until one finishes.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait in all.
    ///   - handler: Decides the answer; runs for one request at a time.
    /// - Throws: ``LoopbackError`` `timedOut`, or `CancellationError` when the task is cancelled.
    public func waitForCallback(timeout: Duration,
                                handler: @escaping @Sendable (LoopbackRequest) async -> LoopbackResponse) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await (request, promise) in self.inbox.requests {
                    let response = await handler(request)
                    if response.finishes { self.inbox.finish() }
                    promise.succeed(response)
                    if response.finishes { return }
                }
                throw CancellationError()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw LoopbackError(code: .timedOut, message: "no sign-in callback arrived within \(timeout.components.seconds) s")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Stops listening and releases the event loop.
    public func close() async {
        inbox.finish()
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// Hands requests from the NIO handlers to the waiting task, one at a time.
final class Inbox: @unchecked Sendable {
    let path: String
    let requests: AsyncStream<(LoopbackRequest, EventLoopPromise<LoopbackResponse>)>
    private let continuation: AsyncStream<(LoopbackRequest, EventLoopPromise<LoopbackResponse>)>.Continuation
    private let lock = NSLock()
    private var finished = false

    init(path: String) {
        self.path = path
        (requests, continuation) = AsyncStream.makeStream()
    }

    var isFinished: Bool { lock.withLock { finished } }

    func finish() {
        lock.withLock { finished = true }
        continuation.finish()
    }

    /// Queues a request; answers 410 at once when the wait is already over.
    func submit(_ request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>) {
        if isFinished {
            promise.succeed(LoopbackPages.alreadyDone)
            return
        }
        if case .terminated = continuation.yield((request, promise)) {
            promise.succeed(LoopbackPages.alreadyDone)
        }
    }
}

/// One HTTP connection's requests.
final class CallbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: Inbox
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(requestHead):
            head = requestHead
            body.clear()
            tooLarge = false
        case var .body(chunk):
            if body.readableBytes + chunk.readableBytes > LoopbackReceiver.maximumBodySize {
                tooLarge = true
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            dispatch(head, context: context)
        }
    }

    private func dispatch(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let requestPath = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard requestPath == inbox.path else {
            respond(LoopbackPages.notFound, context: context)
            return
        }
        guard head.method == .GET || head.method == .POST else {
            respond(LoopbackResponse(status: 405, html: LoopbackPages.page(title: "Method not allowed", message: "Use GET or POST."), finishes: false),
                    context: context)
            return
        }
        if tooLarge {
            respond(LoopbackResponse(status: 413, html: LoopbackPages.page(title: "Too large", message: "The request body is too large."), finishes: false),
                    context: context)
            return
        }
        let hostHeader = head.headers["Host"].first ?? "127.0.0.1"
        guard let url = URL(string: "http://\(hostHeader)\(head.uri)") else {
            respond(LoopbackResponse(status: 400, html: LoopbackPages.page(title: "Bad request", message: "The callback URL cannot be read."), finishes: false),
                    context: context)
            return
        }
        let request = LoopbackRequest(method: head.method.rawValue, url: url, body: Data(body.readableBytesView))
        let promise = context.eventLoop.makePromise(of: LoopbackResponse.self)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { response in
            let (handler, context) = loopBound.value
            handler.respond(response, context: context)
        }
        inbox.submit(request, promise: promise)
    }

    private func respond(_ response: LoopbackResponse, context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: response.html.utf8.count)
        buffer.writeString(response.html)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// The small pages the browser shows.
public enum LoopbackPages {
    static let notFound = LoopbackResponse(status: 404, html: page(title: "Not found", message: "Nothing here."), finishes: false)
    static let alreadyDone = LoopbackResponse(
        status: 410, html: page(title: "Already done", message: "This sign-in has already finished. You can close this tab."), finishes: false)

    /// A minimal HTML page; `title` and `message` are escaped.
    public static func page(title: String, message: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style></head>
        <body><h1>\(escape(title))</h1><p>\(escape(message))</p></body></html>
        """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
