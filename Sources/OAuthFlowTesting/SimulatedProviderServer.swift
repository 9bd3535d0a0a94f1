#if NIO  // SwiftNIO is in the graph only with the package trait NIO (Package.swift)
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OAuthFlow

/// A ``SimulatedProvider`` served over HTTP on a loopback address, for what cannot use its in-process transport: a
/// browser, a client in another process or language, an SDK with its own HTTP stack (the MCP Swift SDK's transport).
///
/// ```swift
/// let authorizationServer = try await SimulatedProviderServer.start()
/// let issuer = authorizationServer.provider.issuer   // http://127.0.0.1:PORT
/// // … sign in, call APIs …
/// await authorizationServer.stop()
/// ```
///
/// Every endpoint answers as the provider does in process. The authorization endpoint plays the user who signs in and
/// consents at once (``subject``): a GET of an authorization URL is answered with the redirect back to the client, so a
/// browser stand-in that follows redirects completes a sign-in. Requests are read whole up to 1 MiB and answered with
/// `Connection: close`; it listens on 127.0.0.1 only.
public final class SimulatedProviderServer: Sendable {
    /// The provider served: its issuer is `http://127.0.0.1:PORT`.
    public let provider: SimulatedProvider
    /// Who signs in and consents at the authorization endpoint.
    public let subject: String
    /// The port listened on.
    public let port: Int

    private let listener: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let serving: Task<Void, Never>
    /// The stop, once one was asked for.
    private let stopping = Locked<Task<Void, Never>?>(nil)

    /// The largest request body read.
    static let maximumBodySize = 1 << 20

    private init(
        provider: SimulatedProvider, subject: String, port: Int, listener: NIOAsyncChannel<Connection, Never>, group: MultiThreadedEventLoopGroup,
        gate: Gate
    ) {
        self.provider = provider
        self.subject = subject
        self.port = port
        self.listener = listener.channel
        self.group = group
        serving = Task {
            try? await listener.executeThenClose { accepted in
                // Until the listener closes; the connections already accepted are still answered.
                await ConnectionTasks.serve(accepted) { await Self.serve($0, gate: gate) }
            }
        }
    }

    /// One accepted connection: its request whole, HTTP/1 response parts out.
    typealias Connection = NIOAsyncChannel<WholeRequest, HTTPServerResponsePart>

    /// Where requests go once the provider is made (the port is known only after binding, and the issuer names it).
    private final class Gate: Sendable {
        private let state = Locked<(provider: SimulatedProvider, subject: String)?>(nil)

        func open(_ provider: SimulatedProvider, subject: String) { state.withLock { $0 = (provider, subject) } }
        var target: (provider: SimulatedProvider, subject: String)? { state.withLock { $0 } }
    }

    /// Starts a provider at `http://127.0.0.1:PORT` and serves it.
    ///
    /// - Parameters:
    ///   - port: 0 for a free port, or a fixed one.
    ///   - clock: The provider's clock (real time, movable, by default).
    ///   - settings: The provider's lifetimes and features.
    ///   - clients: The registered clients; by default the provider's own (``SimulatedProvider/appClientID``, whose
    ///     redirect URI is ``SimulatedProvider/appRedirectURI``, and ``SimulatedProvider/serviceClientID``).
    ///   - subject: Who signs in and consents at the authorization endpoint.
    /// - Throws: ``SimulationError`` when the port cannot be listened on or a signing key cannot be made.
    public static func start(
        port: Int = 0, clock: MovableClock = MovableClock(), settings: SimulatedProvider.Settings = SimulatedProvider.Settings(),
        clients: [SimulatedClient]? = nil, subject: String = "user-1"
    ) async throws -> SimulatedProviderServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let gate = Gate()
        let listener: NIOAsyncChannel<Connection, Never>
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(WholeRequestReader())
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            try? await group.shutdownGracefully()
            throw SimulationError("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        let bound = listener.channel.localAddress?.port ?? port
        do {
            guard let issuer = URL(string: "http://127.0.0.1:\(bound)") else { throw SimulationError("no issuer URL for port \(bound)") }
            let provider = try SimulatedProvider(issuer: issuer, clock: clock, settings: settings, clients: clients)
            gate.open(provider, subject: subject)
            return SimulatedProviderServer(provider: provider, subject: subject, port: bound, listener: listener, group: group, gate: gate)
        } catch {
            try? await listener.channel.close()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops listening, answers the requests already read, and frees the event loop. A second call, or one made while
    /// the first is under way, waits for the same stop: the event loop is shut down once, and nothing is scheduled on
    /// it after (which SwiftNIO reports, and means to make a crash).
    public func stop() async {
        let listener = self.listener
        let serving = self.serving
        let group = self.group
        let stop = stopping.withLock { started in
            if let started { return started }
            let stop = Task {
                try? await listener.close()
                await serving.value
                try? await group.shutdownGracefully()
            }
            started = stop
            return stop
        }
        await stop.value
    }

    /// Answers a connection's one request.
    private static func serve(_ connection: Connection, gate: Gate) async {
        let allocator = connection.channel.allocator
        try? await connection.executeThenClose { requests, outbound in
            for try await request in requests {
                let answer = await Self.answer(request, gate: gate)
                var body = allocator.buffer(capacity: answer.body.count)
                body.writeBytes(answer.body)
                var headers = HTTPHeaders()
                for (name, value) in answer.headers where !["content-length", "connection"].contains(name.lowercased()) {
                    headers.add(name: name, value: value)
                }
                headers.add(name: "Content-Length", value: "\(body.readableBytes)")
                headers.add(name: "Connection", value: "close")
                let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
                try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(body)), .end(nil)])
                return
            }
        }
    }

    /// The provider's answer to a request; the authorization endpoint's is the user's consent, a redirect back.
    private static func answer(_ request: WholeRequest, gate: Gate) async -> TransportResponse {
        guard let (provider, subject) = gate.target else { return TransportResponse(status: 503) }
        guard !request.tooLarge else { return TransportResponse(status: 413) }
        guard let url = URL(string: provider.issuer.absoluteString + request.head.uri) else { return TransportResponse(status: 400) }
        let method: TransportRequest.Method
        switch request.head.method {
        case .GET: method = .get
        case .POST: method = .post
        case .DELETE: method = .delete
        default: return TransportResponse(status: 405)
        }
        if url.path == SimulatedProvider.Endpoint.authorization.path, method == .get {
            // Browsers and Python write a space in the query as `+`; the provider reads `%20`.
            let query = request.head.uri.replacingOccurrences(of: "+", with: "%20")
            guard let spaced = URL(string: provider.issuer.absoluteString + query) else { return TransportResponse(status: 400) }
            do {
                let back = try await provider.approve(spaced, subject: subject)
                return TransportResponse(status: 302, headers: ["Location": back.absoluteString, "Cache-Control": "no-store"])
            } catch {
                let text = Data("the simulated provider cannot answer this authorization request: \(error)".utf8)
                return TransportResponse(status: 400, headers: ["Content-Type": "text/plain; charset=utf-8"], body: text)
            }
        }
        var headers: [String: String] = [:]
        for (name, value) in request.head.headers {
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let body = request.body.readableBytes > 0 ? Data(request.body.readableBytesView) : nil
        do {
            return try await provider.transport.send(TransportRequest(method: method, url: url, headers: headers, body: body))
        } catch {
            return TransportResponse(status: 502)
        }
    }
}
#endif
