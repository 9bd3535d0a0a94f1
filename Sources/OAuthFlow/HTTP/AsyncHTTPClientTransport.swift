// Linux and Android with the package trait NIO, exactly where Package.swift links async-http-client to OAuthFlow: not
// `canImport`, whose answer on a Mac would depend on whether another target of the same build (a test target, Vapor)
// built the module first.
#if (os(Linux) || os(Android)) && NIO
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// ``HTTPTransport`` on async-http-client, the transport OAuthFlow uses on Linux: no redirects, one total deadline
/// (``timeout``), a size cap (``maximumResponseSize``), no compression, no cookies, no cache.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The total time a request may take, from connecting to the last byte of the body.
    public let timeout: TimeInterval
    /// The largest response body accepted, in bytes.
    public let maximumResponseSize: Int

    /// The client all transports share: one connection pool, never shut down, on NIO's
    /// process-wide event loops, created on first use. Per-request limits come from each transport.
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(30), read: .seconds(30)),
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        // A refused connection is an answer: report it now instead of retrying until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        // The library makes each request's span itself, with the environment's tracer, and injects its context:
        // async-http-client's own span (from the global tracer) would be a second one, in a trace of its own.
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The one event loop every request's connection and delegate run on. With the library's choice, a
    /// request may reuse a connection on one loop while its delegate runs on another: every answer would
    /// then hop threads between its read and its arrival callback, which is time a refresh answer spends
    /// unrecorded. One loop serves an auth client's outbound requests many times over.
    private static let loop: any EventLoop = HTTPClient.defaultEventLoopGroup.next()

    /// - Parameters:
    ///   - timeout: The total deadline of each request, in seconds (default 30).
    ///   - maximumResponseSize: The largest body accepted (default 1 MiB).
    public init(timeout: TimeInterval = 30, maximumResponseSize: Int = 1 << 20) {
        // A day at most, and never negative or NaN: the deadline must be representable in nanoseconds.
        self.timeout = timeout.isFinite ? min(max(0, timeout), 86_400) : 86_400
        self.maximumResponseSize = maximumResponseSize
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await send(request, arrival: { _ in })
    }

    public func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        let started = ContinuousClock.now
        let limit = timeout
        do {
            return try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
                group.addTask { try await self.exchange(request, arrival: arrival) }
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(0, limit) * 1_000_000_000))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw TransportError(
                        .timedOut, url: request.url, message: "no complete answer within \(Self.seconds(limit)) (the request's total deadline)")
                }
                return response
            }
        } catch let error as TransportError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let (code, message) = Self.explain(error, after: ContinuousClock.now - started, limit: limit)
            throw TransportError(code, url: request.url, message: message)
        }
    }

    /// Sends the request and reads the body up to the cap, on the request's event loop: the
    /// response is complete, and `arrival` called, on the thread that read its last byte.
    private func exchange(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.replaceOrAdd(name: name, value: value) }
        headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
        let outgoing = try HTTPClient.Request(
            url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
            body: request.body.map { .bytes($0) },
            tlsConfiguration: try request.clientIdentity.map { try Self.tlsConfiguration($0, for: request.url) })
        let collector = ResponseCollector(url: request.url, limit: maximumResponseSize, arrival: arrival)
        // The shared client (and its event loop threads) starts with the first request, not with the transport:
        // commands that never go to the network (`token print` with a valid token) do not pay for it.
        let task = Self.sharedClient.execute(
            request: outgoing, delegate: collector, eventLoop: .delegateAndChannel(on: Self.loop),
            deadline: .now() + .nanoseconds(Int64(timeout * 1_000_000_000)), logger: nil)
        do {
            return try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch let error as HTTPClientError where error == .readTimeout {
            guard let received = collector.bodyBytesIfHeadArrived else { throw error }
            // The head came; the body stalled.
            throw TransportError(.badAnswer, url: request.url, message: "the server stopped sending its answer's body after \(received) bytes")
        }
    }

    /// A client TLS configuration presenting `identity` (RFC 8705), trusting its roots when it names some.
    static func tlsConfiguration(_ identity: TLSClientIdentity, for url: URL) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        do {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(identity.certificateChainPEM.utf8)).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.value.utf8), format: .pem))
            if let roots = identity.trustRootsPEM {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(roots.utf8)))
            }
        } catch {
            // NIOSSL's errors say nothing about the key's bytes; still, name only what failed.
            throw TransportError(.clientCertificate, url: url, message: "the TLS client certificate or its key cannot be read (PEM expected)")
        }
        guard !configuration.certificateChain.isEmpty else {
            throw TransportError(.clientCertificate, url: url, message: "the TLS client certificate file holds no certificate (PEM expected)")
        }
        return configuration
    }

    /// Collects one response on its event loop: refuses a compressed or oversized one as soon as
    /// that shows, and hands the complete response to `arrival` before anything else.
    private final class ResponseCollector: HTTPClientResponseDelegate, @unchecked Sendable {
        typealias Response = TransportResponse
        let url: URL
        let limit: Int
        let arrival: @Sendable (TransportResponse) -> Void
        // Written on the event loop only; `progress` is also read by the caller after a failure.
        private var head: HTTPResponseHead?
        private var body = Data()
        private let lock = NSLock()
        private var progress: Int?

        init(url: URL, limit: Int, arrival: @escaping @Sendable (TransportResponse) -> Void) {
            self.url = url
            self.limit = limit
            self.arrival = arrival
        }

        /// How much of the body had come, when the head had.
        var bodyBytesIfHeadArrived: Int? { lock.withLock { progress } }

        func didReceiveHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            if let coding = head.headers.first(name: "content-encoding")?.trimmingCharacters(in: .whitespaces),
                !coding.isEmpty, coding.lowercased() != "identity"
            {
                return task.eventLoop.makeFailedFuture(
                    TransportError(
                        .badAnswer, url: url,
                        message:
                            "the server sent its answer compressed (Content-Encoding: \(TerminalText.escaped(String(coding.prefix(40))))) although the request accepted only identity; OAuthFlow does not decompress answers"
                    ))
            }
            if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > limit {
                return task.eventLoop.makeFailedFuture(
                    TransportError(
                        .tooLarge, url: url, message: "the response body is larger than the \(limit) bytes accepted (Content-Length: \(declared))"))
            }
            self.head = head
            lock.withLock { progress = 0 }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<TransportResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            guard body.count + buffer.readableBytes <= limit else {
                // A failed future ends the request and closes the connection: nothing more is read.
                return task.eventLoop.makeFailedFuture(
                    TransportError(.tooLarge, url: url, message: "the response body is larger than the \(limit) bytes accepted"))
            }
            body.append(contentsOf: buffer.readableBytesView)
            let count = body.count
            lock.withLock { progress = count }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveError(task: HTTPClient.Task<TransportResponse>, _ error: any Error) {}

        func didFinishRequest(task: HTTPClient.Task<TransportResponse>) throws -> TransportResponse {
            guard let head else { throw TransportError(.badAnswer, url: url, message: "the server sent no response head") }
            // Repeated fields joined in order (RFC 9110 §5.3): every `WWW-Authenticate` challenge reaches the engine.
            let headers = TransportResponse.combining(head.headers.lazy.map { (name: $0.name, value: $0.value) })
            let response = TransportResponse(status: Int(head.status.code), headers: headers, body: body)
            arrival(response)
            return response
        }
    }

    /// A sentence for a failure, saying what happened and after how long.
    static func explain(_ error: any Error, after elapsed: Duration, limit: TimeInterval) -> (TransportError.Code, String) {
        let took = "after " + seconds(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return (
                .tls,
                "the server's TLS certificate is not trusted (\(took)); for a server with a private CA, give that CA's certificate (`ca_file` in the clients file, TLSClientIdentity.trustRootsPEM)"
            )
        }
        if text.contains("handshakeFailed") || text.contains("SSLV3_ALERT") || text.contains("TLSV1_ALERT") {
            return (.tls, "the TLS handshake failed (\(took)): the server refused the connection's certificates or settings")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded: return (.timedOut, "no complete answer within \(seconds(limit)) (the request's total deadline)")
            case .connectTimeout: return (.timedOut, "could not connect (\(took))")
            case .readTimeout: return (.timedOut, "the server accepted the connection but sent no answer (\(took))")
            case .remoteConnectionClosed: return (.badAnswer, "the server closed the connection before answering (\(took))")
            case .invalidURL: return (.failed, "the URL is not valid")
            default: return (.failed, "\(error) (\(took))")
            }
        }
        if let error = error as? NIOConnectionError {
            let reasons = error.connectionErrors.map { "\($0.error)" }
            if let dns = error.dnsAAAAError ?? error.dnsAError, reasons.isEmpty {
                return (.unreachable, "the host name could not be resolved (\(dns))")
            }
            return (.unreachable, "could not connect: \(reasons.first ?? "\(error)") (\(took))")
        }
        if let error = error as? IOError {
            let reason = String(cString: strerror(error.errnoCode)).lowercased()
            return error.errnoCode == ECONNREFUSED ? (.unreachable, "could not connect: \(reason) (\(took))") : (.failed, "\(reason) (\(took))")
        }
        return (.failed, "\(error) (\(took))")
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }
}
#endif
