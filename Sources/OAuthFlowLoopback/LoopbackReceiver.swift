import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OAuthFlow

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
    /// Where a redirect (303) sends the browser.
    public var location: URL?

    public init(status: Int, html: String, finishes: Bool, location: URL? = nil) {
        self.status = status
        self.html = html
        self.finishes = finishes
        self.location = location
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
        /// The wait ended without a finishing callback (reported rather than trapped; not expected).
        public static let noResult = Code("no_result")
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
/// - It cannot be flooded (``Limits``): a connection must deliver a whole request within
///   10 s; at most 64 are open at once (the oldest one still sending is dropped for a
///   new one, so the browser's callback always gets in); at most 8 requests wait for
///   the handler, and one that waits longer than 5 s (the handler is busy with a slow
///   token exchange) is answered 503 rather than left hanging.
/// - Every answer carries `Cache-Control: no-store` and `Referrer-Policy: no-referrer`,
///   so the code in the URL does not leak from the page.
///
/// The server runs on SwiftNIO's structured-concurrency API: the listening channel and each connection are
/// `NIOAsyncChannel`s, each connection served by a task of its own that reads one request and answers it.
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

    public let host: String
    public let port: Int
    public let path: String
    /// The redirect URI to register and send: `http://HOST:PORT/PATH`.
    public let redirectURI: URL
    /// The listening socket.
    private let listener: any Channel
    /// Accepts connections and serves each; ends once the listener is closed and every connection is done.
    private let server: Task<Void, Never>
    private let group: MultiThreadedEventLoopGroup
    private let inbox: Inbox
    private let connections: ConnectionTable

    private init(
        host: String, port: Int, path: String, redirectURI: URL, listener: NIOAsyncChannel<Connection, Never>,
        group: MultiThreadedEventLoopGroup, inbox: Inbox, connections: ConnectionTable
    ) {
        self.host = host
        self.port = port
        self.path = path
        self.redirectURI = redirectURI
        self.listener = listener.channel
        self.group = group
        self.inbox = inbox
        self.connections = connections
        server = Task {
            try? await listener.executeThenClose { accepted in
                await withTaskGroup(of: Void.self) { tasks in
                    do {
                        for try await connection in accepted {
                            tasks.addTask {
                                await Self.serve(connection, inbox: inbox)
                            }
                        }
                    } catch {
                        // The listener failed or was closed: the connections already accepted are still served.
                    }
                }
            }
        }
    }

    /// One accepted connection: HTTP/1 requests in, response parts out.
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The redirect URI for `host` (bare), `port` and `path`, or nil when they do not form one.
    private static func redirectURI(host: String, port: Int, path: String) -> URL? {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(hostPart):\(port)\(path)")
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: `127.0.0.1` or `::1` (brackets allowed); anything else is refused.
    ///   - port: 0 for an ephemeral port, or a fixed port.
    ///   - path: The redirect path, such as `/callback`.
    /// - Throws: ``LoopbackError`` `portInUse` when a fixed port is taken, `notLoopback`
    ///   for a non-loopback host, `bindFailed` otherwise.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, path: String = "/callback",
        limits: Limits = Limits()
    ) async throws -> LoopbackReceiver {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard bare == "127.0.0.1" || bare == "::1" else {
            throw LoopbackError(code: .notLoopback, message: "the redirect receiver listens only on 127.0.0.1 or [::1], not \(host)")
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
        let listener: NIOAsyncChannel<Connection, Never>
        do {
            listener = try await bootstrap.bind(host: bare, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // On the event loop, as the connection is accepted: the limit and the deadline hold however
                    // busy the tasks that serve connections are.
                    connections.accept(channel, requestTimeout: limits.requestTimeout)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestArrival(connections: connections))
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        } catch {
            try? await group.shutdownGracefully()
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                throw LoopbackError(
                    code: .portInUse, message: "port \(port) on \(bare) is already in use; close what holds it or choose another port")
            }
            throw LoopbackError(code: .bindFailed, message: "cannot listen on \(bare):\(port): \(text)")
        }
        let actualPort = listener.channel.localAddress?.port ?? port
        guard let redirectURI = redirectURI(host: bare, port: actualPort, path: path) else {
            try? await listener.channel.close()
            try? await group.shutdownGracefully()
            throw LoopbackError(code: .bindFailed, message: "the redirect URI of \(bare):\(actualPort)\(path) does not parse")
        }
        return LoopbackReceiver(
            host: bare, port: actualPort, path: path, redirectURI: redirectURI, listener: listener, group: group, inbox: inbox,
            connections: connections)
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
                    self.inbox.setHandling(true)
                    let response = await handler(queued.request)
                    self.inbox.setHandling(false)
                    if response.finishes { self.inbox.finish() }
                    queued.promise.succeed(response)
                    if response.finishes { return }
                }
                throw CancellationError()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                // A callback being handled is not a missing callback: its own steps have deadlines.
                while self.inbox.isHandling { try await Task.sleep(for: .milliseconds(50)) }
                throw LoopbackError(code: .timedOut, message: "no sign-in callback arrived within \(timeout.components.seconds) s")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// How many connections are open now.
    var openConnections: Int { connections.count }

    /// Stops listening, closes the connections still open, and releases the event loop.
    public func close() async {
        inbox.finish()
        // Requests no handler will take are answered, so that their connections' tasks end.
        inbox.abandonWaiting()
        connections.closeAll()
        try? await listener.close()
        await server.value
        try? await group.shutdownGracefully()
    }

    /// Serves one connection: reads one request, answers it, and closes (``ConnectionTable`` closes it first
    /// when the request does not arrive in time).
    private static func serve(_ connection: Connection, inbox: Inbox) async {
        let channel = connection.channel
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            var tooLarge = false
            for try await part in inbound {
                switch part {
                case let .head(requestHead):
                    head = requestHead
                    body.clear()
                    tooLarge = false
                case var .body(chunk):
                    if body.readableBytes + chunk.readableBytes > maximumBodySize {
                        tooLarge = true
                    } else {
                        body.writeBuffer(&chunk)
                    }
                case .end:
                    guard let complete = head else { continue }
                    let response = await answer(complete, body: body, tooLarge: tooLarge, inbox: inbox, eventLoop: channel.eventLoop)
                    try await write(response, to: outbound, allocator: channel.allocator)
                    // Every answer says `Connection: close`: the connection is done.
                    return
                }
            }
        }
    }

    /// The answer to a whole request: 404, 405, 413 or 400 at once, else the handler's (or 503 or 410 from the inbox).
    private static func answer(
        _ head: HTTPRequestHead, body: ByteBuffer, tooLarge: Bool, inbox: Inbox, eventLoop: any EventLoop
    ) async -> LoopbackResponse {
        let requestPath = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard requestPath == inbox.path else { return LoopbackPages.notFound }
        guard head.method == .GET || head.method == .POST else {
            return LoopbackResponse(status: 405, html: LoopbackPages.page(title: "Method not allowed", message: "Use GET or POST."), finishes: false)
        }
        if tooLarge {
            return LoopbackResponse(
                status: 413, html: LoopbackPages.page(title: "Too large", message: "The request body is too large."), finishes: false)
        }
        let hostHeader = head.headers["Host"].first ?? "127.0.0.1"
        guard let url = URL(string: "http://\(hostHeader)\(head.uri)") else {
            return LoopbackResponse(
                status: 400, html: LoopbackPages.page(title: "Bad request", message: "The callback URL cannot be read."), finishes: false)
        }
        let request = LoopbackRequest(method: head.method.rawValue, url: url, body: Data(body.readableBytesView))
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

/// A request waiting for the handler; answered by the handler or, after the queue timeout, with 503.
final class QueuedRequest: Sendable {
    let request: LoopbackRequest
    let promise: EventLoopPromise<LoopbackResponse>
    private let claimed = Locked(false)

    init(request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>) {
        self.request = request
        self.promise = promise
    }

    /// Takes the right to answer; false when someone already did.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

/// Hands requests from the connections to the waiting task, one at a time.
final class Inbox: Sendable {
    let path: String
    let requests: AsyncStream<QueuedRequest>
    private let continuation: AsyncStream<QueuedRequest>.Continuation
    private let limits: LoopbackReceiver.Limits
    private let state = Locked(State())

    private struct State {
        var finished = false
        /// Whether the handler is working on a request now.
        var handling = false
        /// The requests admitted and not yet answered.
        var waiting: [ObjectIdentifier: QueuedRequest] = [:]
    }

    init(path: String, limits: LoopbackReceiver.Limits) {
        self.path = path
        self.limits = limits
        (requests, continuation) = AsyncStream.makeStream()
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether the handler is working on a request now.
    var isHandling: Bool { state.withLock { $0.handling } }

    func setHandling(_ value: Bool) {
        state.withLock { $0.handling = value }
    }

    func finish() {
        state.withLock { $0.finished = true }
        continuation.finish()
    }

    /// Answers 503 to every request still waiting that no one took: the receiver is closing.
    func abandonWaiting() {
        let waiting = state.withLock { $0.waiting.values }
        for queued in waiting where queued.claim() { queued.promise.succeed(LoopbackPages.busy) }
    }

    /// Queues a request; answers 410 at once when the wait is already over, and 503 when
    /// too many are waiting or this one waits too long.
    func submit(_ request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>, on eventLoop: any EventLoop) {
        if isFinished {
            promise.succeed(LoopbackPages.alreadyDone)
            return
        }
        let queued = QueuedRequest(request: request, promise: promise)
        let id = ObjectIdentifier(queued)
        let admitted = state.withLock { state in
            guard state.waiting.count < limits.maximumQueuedRequests else { return false }
            state.waiting[id] = queued
            return true
        }
        guard admitted else {
            promise.succeed(LoopbackPages.busy)
            return
        }
        promise.futureResult.whenComplete { _ in self.state.withLock { _ = $0.waiting.removeValue(forKey: id) } }
        eventLoop.scheduleTask(in: limits.queueTimeout) {
            if queued.claim() { promise.succeed(LoopbackPages.busy) }
        }
        if case .terminated = continuation.yield(queued), queued.claim() {
            promise.succeed(LoopbackPages.alreadyDone)
        }
    }
}

/// The open connections, so that a flood of idle ones cannot lock the browser out.
final class ConnectionTable: Sendable {
    private struct Entry {
        let channel: any Channel
        let order: Int
        var requestReceived = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var counter = 0
        /// Set when the receiver closes: a connection accepted after that is closed at once.
        var closed = false
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Registers a connection as it is accepted: closes the oldest one still sending its request when that makes
    /// too many, closes this one when it has not delivered a whole request within `requestTimeout` (no slowloris),
    /// and forgets it once it is closed. A connection accepted after ``closeAll()`` is closed at once.
    func accept(_ channel: any Channel, requestTimeout: TimeAmount) {
        let (admitted, victim) = state.withLock { state -> (Bool, (any Channel)?) in
            guard !state.closed else { return (false, nil) }
            state.counter += 1
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, order: state.counter)
            guard state.entries.count > limit else { return (true, nil) }
            let victim =
                state.entries.values.filter { !$0.requestReceived }.min { $0.order < $1.order }
                ?? state.entries.values.min { $0.order < $1.order }
            if let victim { state.entries[ObjectIdentifier(victim.channel)] = nil }
            return (true, victim?.channel)
        }
        victim?.close(promise: nil)
        guard admitted else {
            // After the pipeline is set up: a channel closed inside its initializer would fail the accept.
            channel.eventLoop.execute { channel.close(promise: nil) }
            return
        }
        channel.closeFuture.whenComplete { _ in self.remove(channel) }
        channel.eventLoop.scheduleTask(in: requestTimeout) {
            if !self.hasReceivedRequest(channel) { channel.close(promise: nil) }
        }
    }

    /// Whether `channel`'s request has arrived whole (true for a connection no longer listed).
    private func hasReceivedRequest(_ channel: any Channel) -> Bool {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.requestReceived ?? true }
    }

    func markRequestReceived(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.requestReceived = true }
    }

    private func remove(_ channel: any Channel) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes every connection open now and refuses those accepted later.
    func closeAll() {
        let open = state.withLock { state -> [any Channel] in
            state.closed = true
            return state.entries.values.map(\.channel)
        }
        for channel in open { channel.close(promise: nil) }
    }

    var count: Int { state.withLock { $0.entries.count } }
}

/// Marks a connection's request as arrived when its last part is read, on the event loop: the deadline never
/// closes a connection whose request came in time, however late its task reads it.
final class RequestArrival: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let connections: ConnectionTable

    init(connections: ConnectionTable) {
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { connections.markRequestReceived(context.channel) }
        context.fireChannelRead(data)
    }
}

/// The small pages the browser shows.
public enum LoopbackPages {
    static let notFound = LoopbackResponse(status: 404, html: page(title: "Not found", message: "Nothing here."), finishes: false)
    static let busy = LoopbackResponse(
        status: 503, html: page(title: "Busy", message: "Another request to this address is being handled. Reload the page in a moment."),
        finishes: false)
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
        HTMLText.escaped(text)
    }
}
