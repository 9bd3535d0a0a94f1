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
public final class LoopbackReceiver: @unchecked Sendable {
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
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let inbox: Inbox
    private let connections: ConnectionTable

    /// The redirect URI to register and send: `http://HOST:PORT/PATH`.
    public var redirectURI: URL {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        // The host and path were validated when binding, so this always parses.
        return URL(string: "http://\(hostPart):\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    private init(
        host: String, port: Int, path: String, channel: any Channel, group: MultiThreadedEventLoopGroup, inbox: Inbox,
        connections: ConnectionTable
    ) {
        self.connections = connections
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
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, path: String = "/callback",
        limits: Limits = Limits()
    ) async throws -> LoopbackReceiver {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard bare == "127.0.0.1" || bare == "::1" else {
            throw LoopbackError(code: .notLoopback, message: "the redirect receiver listens only on 127.0.0.1 or [::1], not \(host)")
        }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
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
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(CallbackHandler(inbox: inbox, connections: connections, requestTimeout: limits.requestTimeout))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: bare, port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                throw LoopbackError(
                    code: .portInUse, message: "port \(port) on \(bare) is already in use; close what holds it or choose another port")
            }
            throw LoopbackError(code: .bindFailed, message: "cannot listen on \(bare):\(port): \(text)")
        }
        let actualPort = channel.localAddress?.port ?? port
    ///   - limits: What one client may cost the receiver: connections, queued requests and their deadlines.
        return LoopbackReceiver(host: bare, port: actualPort, path: path, channel: channel, group: group, inbox: inbox, connections: connections)
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

    /// Stops listening and releases the event loop.
    public func close() async {
        inbox.finish()
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// A request waiting for the handler; answered by the handler or, after the queue timeout, with 503.
final class QueuedRequest: @unchecked Sendable {
    let request: LoopbackRequest
    let promise: EventLoopPromise<LoopbackResponse>
    private let lock = NSLock()
    private var claimed = false

    init(request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>) {
        self.request = request
        self.promise = promise
    }

    /// Takes the right to answer; false when someone already did.
    func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}

/// Hands requests from the NIO handlers to the waiting task, one at a time.
final class Inbox: @unchecked Sendable {
    let path: String
    let requests: AsyncStream<QueuedRequest>
    private let continuation: AsyncStream<QueuedRequest>.Continuation
    private let lock = NSLock()
    private let limits: LoopbackReceiver.Limits
    private var finished = false
    private var waiting = 0

    init(path: String, limits: LoopbackReceiver.Limits) {
        self.path = path
        self.limits = limits
        (requests, continuation) = AsyncStream.makeStream()
    }

    private var handling = false

    var isFinished: Bool { lock.withLock { finished } }

    /// Whether the handler is working on a request now.
    var isHandling: Bool { lock.withLock { handling } }

    func setHandling(_ value: Bool) {
        lock.withLock { handling = value }
    }

    func finish() {
        lock.withLock { finished = true }
        continuation.finish()
    }

    /// Queues a request; answers 410 at once when the wait is already over, and 503 when
    /// too many are waiting or this one waits too long.
    func submit(_ request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>, on eventLoop: any EventLoop) {
        if isFinished {
            promise.succeed(LoopbackPages.alreadyDone)
            return
        }
        let admitted = lock.withLock {
            guard waiting < limits.maximumQueuedRequests else { return false }
            waiting += 1
            return true
        }
        guard admitted else {
            promise.succeed(LoopbackPages.busy)
            return
        }
        promise.futureResult.whenComplete { _ in self.lock.withLock { self.waiting -= 1 } }
        let queued = QueuedRequest(request: request, promise: promise)
        eventLoop.scheduleTask(in: limits.queueTimeout) {
            if queued.claim() { promise.succeed(LoopbackPages.busy) }
        }
        if case .terminated = continuation.yield(queued), queued.claim() {
            promise.succeed(LoopbackPages.alreadyDone)
        }
    }
}

/// The open connections, so that a flood of idle ones cannot lock the browser out.
final class ConnectionTable: @unchecked Sendable {
    private struct Entry {
        let channel: any Channel
        let order: Int
        var requestReceived = false
    }

    private let lock = NSLock()
    private let limit: Int
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var counter = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Registers a connection; when that makes too many, returns the oldest one still sending its request.
    func add(_ channel: any Channel) -> (any Channel)? {
        lock.withLock {
            counter += 1
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, order: counter)
            guard entries.count > limit else { return nil }
            let victim =
                entries.values.filter { !$0.requestReceived }.min { $0.order < $1.order }
                ?? entries.values.min { $0.order < $1.order }
            if let victim { entries[ObjectIdentifier(victim.channel)] = nil }
            return victim?.channel
        }
    }

    func markRequestReceived(_ channel: any Channel) {
        lock.withLock { entries[ObjectIdentifier(channel)]?.requestReceived = true }
    }

    func remove(_ channel: any Channel) {
        _ = lock.withLock { entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var count: Int { lock.withLock { entries.count } }
}

/// One HTTP connection's requests.
final class CallbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: Inbox
    private let connections: ConnectionTable
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false
    private let requestTimeout: TimeAmount
    private var requestComplete = false

    init(inbox: Inbox, connections: ConnectionTable, requestTimeout: TimeAmount) {
        self.inbox = inbox
        self.connections = connections
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let victim = connections.add(context.channel) { victim.close(promise: nil) }
        // A whole request within the deadline, or the connection goes: no slowloris.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: requestTimeout) {
            let (handler, context) = loopBound.value
            if !handler.requestComplete { context.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.remove(context.channel)
        context.fireChannelInactive()
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
            requestComplete = true
            connections.markRequestReceived(context.channel)
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
            respond(
                LoopbackResponse(status: 405, html: LoopbackPages.page(title: "Method not allowed", message: "Use GET or POST."), finishes: false),
                context: context)
            return
        }
        if tooLarge {
            respond(
                LoopbackResponse(
                    status: 413, html: LoopbackPages.page(title: "Too large", message: "The request body is too large."), finishes: false),
                context: context)
            return
        }
        let hostHeader = head.headers["Host"].first ?? "127.0.0.1"
        guard let url = URL(string: "http://\(hostHeader)\(head.uri)") else {
            respond(
                LoopbackResponse(
                    status: 400, html: LoopbackPages.page(title: "Bad request", message: "The callback URL cannot be read."), finishes: false),
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
        inbox.submit(request, promise: promise, on: context.eventLoop)
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
        if let location = response.location { headers.add(name: "Location", value: location.absoluteString) }
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
