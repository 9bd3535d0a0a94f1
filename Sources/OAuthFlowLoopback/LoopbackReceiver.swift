#if NIO
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OAuthFlow

/// Receives the authorization redirect on a loopback address (RFC 8252 §7.3): `127.0.0.1` or `::1` only, on an
/// ephemeral port (0) or a fixed one.
public final class LoopbackReceiver: Sendable {
    /// Bodies larger than this are refused (a `form_post` callback is a few hundred bytes).
    public static let maximumBodySize = 64 * 1024

    /// What one client may cost the receiver.
    public struct Limits: Sendable {
        /// How long a connection may take to deliver one whole request.
        public var requestTimeout: TimeAmount = .seconds(10)
        /// The most connections open at once.
        public var maximumConnections = 64
        /// The most requests waiting for the handler.
        public var maximumQueuedRequests = 8
        /// How long a request waits for a busy handler before it is answered 503.
        public var queueTimeout: TimeAmount = .seconds(5)

        public init() {}
    }

    /// How many accepted connections may wait for the task that takes them before the listener pauses.
    ///
    /// The listener must go on accepting while Swift's task pool is busy: the connection limit is kept as a
    /// connection is accepted, so a flood is met by closing its connections, whereas a paused listener would let
    /// the kernel's backlog fill and leave every client, the browser too, hanging in `connect`. Far above the
    /// connection limit: in a flood most connections waiting here are closed already.
    static let acceptedBacklog = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
        lowWatermark: 512, highWatermark: 1024)

    public let host: String
    public let port: Int
    public let path: String
    /// The redirect URI, made once the port is known.
    private let redirect: URL
    /// The listening sockets: one, or 127.0.0.1 and ::1 on one port for a redirect URI that names `localhost`.
    private let listeners: [any Channel]
    /// Accepts connections and serves each; ends once the listener is closed and every connection is done.
    private let server: Task<Void, Never>
    private let group: MultiThreadedEventLoopGroup
    private let inbox: Inbox
    private let connections: ConnectionTable
    /// The close, once one was asked for.
    private let closing = Locked<Task<Void, Never>?>(nil)

    /// The redirect URI to register and send: `http://HOST:PORT/PATH`.
    public var redirectURI: URL { redirect }

    private init(
        host: String, port: Int, path: String, redirect: URL, listeners: [NIOAsyncChannel<Connection, Never>],
        group: MultiThreadedEventLoopGroup, inbox: Inbox, connections: ConnectionTable
    ) {
        self.host = host
        self.port = port
        self.path = path
        self.redirect = redirect
        self.listeners = listeners.map(\.channel)
        self.group = group
        self.inbox = inbox
        self.connections = connections
        server = Task {
            // One child per listening socket (one or two, for as long as the receiver runs).
            await withTaskGroup(of: Void.self) { sockets in
                for listener in listeners {
                    sockets.addTask {
                        try? await listener.executeThenClose { accepted in
                            await ConnectionTasks.serve(accepted) { await Self.serve($0, inbox: inbox) }
                        }
                    }
                }
            }
        }
    }

    /// One accepted connection: whole requests in (``RequestReader``), HTTP/1 response parts out.
    typealias Connection = NIOAsyncChannel<ReceivedRequest, HTTPServerResponsePart>

    /// The redirect URI for `host` (bare), `port` and `path`, or nil when they do not form one.
    private static func redirectURI(host: String, port: Int, path: String) -> URL? {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(hostPart):\(port)\(path)")
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: `127.0.0.1` or `::1` (brackets allowed), or `localhost`, which the redirect URI then names and the
    ///     receiver listens for on 127.0.0.1 and ::1 on one port; anything else is refused.
    ///   - port: 0 for an ephemeral port, or a fixed port.
    ///   - path: The redirect path, such as `/callback`.
    ///   - limits: What one client may cost the receiver: connections, queued requests and their deadlines.
    /// - Throws: ``LoopbackError`` `portInUse` when a fixed port is taken, `notLoopback`
    ///   for a non-loopback host, `bindFailed` otherwise.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, path: String = "/callback",
        limits: Limits = Limits()
    ) async throws -> LoopbackReceiver {
        var bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let localhost = bare.lowercased() == "localhost"
        if localhost { bare = "localhost" }
        guard localhost || bare == "127.0.0.1" || bare == "::1" else {
            throw LoopbackError(
                code: .notLoopback, message: "the redirect receiver listens only on 127.0.0.1, [::1] or both (localhost), not \(host)")
        }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#"), redirectURI(host: bare, port: port, path: path) != nil else {
            throw LoopbackError(code: .bindFailed, message: "the redirect path must start with / and have no query or fragment: \(path)")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let inbox = Inbox(path: path, limits: limits)
        let connections = ConnectionTable(limit: limits.maximumConnections)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // SO_REUSEADDR lets a fixed port be bound again while the previous login's connections
            // sit in TIME_WAIT (about 60 s); it still refuses a port another socket listens on.
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        func bind(_ address: String, _ port: Int) async throws -> NIOAsyncChannel<Connection, Never> {
            try await bootstrap.bind(host: address, port: port, serverBackPressureStrategy: acceptedBacklog) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // On the event loop, as the connection is accepted: the limit and the deadline hold however
                    // busy the tasks that serve connections are.
                    connections.accept(channel, requestTimeout: limits.requestTimeout)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestReader(connections: connections))
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        }
        let listeners: [NIOAsyncChannel<Connection, Never>]
        do {
            listeners = localhost ? try await bindBoth(port: port, bind) : [try await bind(bare, port)]
        } catch {
            try? await group.shutdownGracefully()
            if isAddressInUse(error) {
                throw LoopbackError(
                    code: .portInUse, message: "port \(port) on \(bare) is already in use; close what holds it or choose another port")
            }
            throw LoopbackError(code: .bindFailed, message: "cannot listen on \(bare):\(port): \(error)")
        }
        let actualPort = listeners.first?.channel.localAddress?.port ?? port
        guard let redirect = redirectURI(host: bare, port: actualPort, path: path) else {
            for listener in listeners { try? await listener.channel.close() }
            try? await group.shutdownGracefully()
            throw LoopbackError(code: .bindFailed, message: "the redirect URI of \(bare):\(actualPort)\(path) does not parse")
        }
        return LoopbackReceiver(
            host: bare, port: actualPort, path: path, redirect: redirect, listeners: listeners, group: group, inbox: inbox,
            connections: connections)
    }

    /// Whether a bind failed because another socket holds the address.
    private static func isAddressInUse(_ error: any Error) -> Bool {
        if let error = error as? IOError, error.errnoCode == EADDRINUSE { return true }
        let text = "\(error)"
        return text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98")
    }

    /// Listens on 127.0.0.1 and on ::1 with the same port, for a redirect URI that names `localhost` (which a
    /// browser may resolve to either). Where the machine has no IPv6 loopback, 127.0.0.1 alone. An ephemeral port
    /// that another program holds on ::1 is given up for another (at most 8 tries); a fixed one is refused as in use,
    /// since that program would receive the callbacks the browser sends to ::1.
    private static func bindBoth(
        port: Int, _ bind: (String, Int) async throws -> NIOAsyncChannel<Connection, Never>
    ) async throws -> [NIOAsyncChannel<Connection, Never>] {
        var attempt = 0
        while true {
            attempt += 1
            let v4 = try await bind("127.0.0.1", port)
            let chosen = v4.channel.localAddress?.port ?? port
            do {
                return [v4, try await bind("::1", chosen)]
            } catch let error where isAddressInUse(error) {
                try? await v4.channel.close()
                if port != 0 || attempt >= 8 { throw error }
            } catch {
                // No IPv6 loopback here (no ::1, or IPv6 off): a browser resolves localhost to 127.0.0.1 then.
                return [v4]
            }
        }
    }

    /// Waits for the callback, passing each request on the redirect path to `handler` until one finishes.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait in all.
    ///   - handler: Decides the answer; runs for one request at a time.
    ///   The timeout does not cut a request the handler is working on (a token exchange has
    ///   deadlines of its own): it ends the wait only while no callback is being handled.
    /// - Throws: ``LoopbackError`` `timedOut`, or `CancellationError` when the task is cancelled.
    public func waitForCallback(
        timeout: Duration,
        handler: @escaping @Sendable (LoopbackRequest) async -> LoopbackResponse
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await queued in self.inbox.requests {
                    // One that waited too long was answered 503 already.
                    guard queued.claim() else { continue }
                    let response = await handler(queued.request)
                    if response.finishes { self.inbox.finishAnswered() }
                    queued.promise.succeed(response)
                    if response.finishes { return }
                }
                throw CancellationError()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                // A callback that arrived in time is not a missing callback, whether it waits for the handler, is
                // being handled or was just answered (``Inbox/holds(_:)``): its own steps have deadlines.
                let arrived = self.inbox.unanswered
                while self.inbox.holds(arrived) { try await Task.sleep(for: .milliseconds(50)) }
                throw LoopbackError(code: .timedOut, message: "no sign-in callback arrived within \(timeout.components.seconds) s")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// How many connections are open now.
    var openConnections: Int { connections.count }

    /// Stops listening, lets the answers already decided reach their browsers, and releases the event loop.
    ///
    /// A connection whose request arrived whole gets its answer before it closes: the handler's (the finishing
    /// page, which the caller closes the receiver right after), or 503 for one no handler will take now, or
    /// 410. Connections still sending their request are closed at once. A second call, or one made while the first is
    /// under way, waits for the same close: the event loop is shut down once, and nothing is scheduled on it after.
    public func close() async {
        let (inbox, connections, listeners, server, group) = (inbox, connections, listeners, server, group)
        let close = closing.withLock { started in
            if let started { return started }
            let close = Task {
                inbox.finish()
                inbox.abandonWaiting()
                connections.closeUnfinished()
                for listener in listeners { try? await listener.close() }
                // Each connection's task writes its answer and closes it; the last one ends the server task.
                await server.value
                try? await group.shutdownGracefully()
            }
            started = close
            return close
        }
        await close.value
    }

    /// Serves one connection: answers its request and closes (``ConnectionTable`` closes it first when the
    /// request does not arrive whole in time).
    private static func serve(_ connection: Connection, inbox: Inbox) async {
        let channel = connection.channel
        try? await connection.executeThenClose { requests, outbound in
            // One request per connection: every answer says `Connection: close`.
            for try await request in requests {
                let response = await answer(request, inbox: inbox, eventLoop: channel.eventLoop)
                try await write(response, to: outbound, allocator: channel.allocator)
                return
            }
        }
    }

    /// The answer to a whole request: 404, 405, 413 or 400 at once, else the handler's (or 503 or 410 from the inbox).
    private static func answer(_ received: ReceivedRequest, inbox: Inbox, eventLoop: any EventLoop) async -> LoopbackResponse {
        let head = received.head
        let requestPath = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard requestPath == inbox.path else { return LoopbackPages.notFound }
        guard head.method == .GET || head.method == .POST else {
            return LoopbackResponse(status: 405, html: LoopbackPages.page(title: "Method not allowed", message: "Use GET or POST."), finishes: false)
        }
        if received.tooLarge {
            return LoopbackResponse(
                status: 413, html: LoopbackPages.page(title: "Too large", message: "The request body is too large."), finishes: false)
        }
        let hostHeader = head.headers["Host"].first ?? "127.0.0.1"
        guard let url = URL(string: "http://\(hostHeader)\(head.uri)") else {
            return LoopbackResponse(
                status: 400, html: LoopbackPages.page(title: "Bad request", message: "The callback URL cannot be read."), finishes: false)
        }
        let request = LoopbackRequest(method: head.method.rawValue, url: url, body: Data(received.body.readableBytesView))
        let promise = eventLoop.makePromise(of: LoopbackResponse.self)
        inbox.submit(request, promise: promise, on: eventLoop)
        // Always completed: by the handler, by the queue timeout (503), or when the receiver closes.
        return (try? await promise.futureResult.get()) ?? LoopbackPages.busy
    }

    /// Writes `response` as a whole HTML answer.
    private static func write(
        _ response: LoopbackResponse, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, allocator: ByteBufferAllocator
    ) async throws {
        var buffer = allocator.buffer(capacity: response.html.utf8.count)
        buffer.writeString(response.html)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Connection", value: "close")
        if let location = response.location { headers.add(name: "Location", value: location.absoluteString) }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(buffer)), .end(nil)])
    }
}
#endif
