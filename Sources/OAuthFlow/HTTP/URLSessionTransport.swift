// Everywhere Package.swift does not link async-http-client to OAuthFlow (AsyncHTTPClientTransport.swift says why
// the test is os(), not canImport): Apple platforms, and Linux without the package trait NIO; on Linux also when
// scripts/apple-typecheck.sh type-checks it (never in a build).
#if !((os(Linux) || os(Android)) && NIO) || OAUTHFLOW_TYPECHECK_APPLE
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` on `URLSession`, hardened for an OAuth client: the transport on Apple platforms.
///
/// It presents no TLS client certificate: a request that carries one (``TransportRequest/clientIdentity``, mutual
/// TLS, RFC 8705) is refused before anything is sent.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    public let timeout: TimeInterval
    public let maximumResponseSize: Int
    private let session: URLSession
    private let delegate: Delegate

    /// The sessions of this process, one per timeout and size limit.
    private static let sessions = Locked<[Limits: (URLSession, Delegate)]>([:])

    private struct Limits: Hashable {
        let timeout: TimeInterval
        let maximumResponseSize: Int
    }

    public init(timeout: TimeInterval = 30, maximumResponseSize: Int = 1 << 20) {
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
        (session, delegate) = Self.sessions.withLock { sessions in
            let limits = Limits(timeout: timeout, maximumResponseSize: maximumResponseSize)
            if let shared = sessions[limits] { return shared }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieAcceptPolicy = .never
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
            configuration.timeoutIntervalForRequest = timeout
            configuration.timeoutIntervalForResource = timeout
            // Ask for no compression: an inflated body could be far larger than the bytes that came.
            configuration.httpAdditionalHeaders = ["Accept-Encoding": "identity"]
            let delegate = Delegate(limit: maximumResponseSize)
            let shared = (URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil), delegate)
            sessions[limits] = shared
            return shared
        }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.clientIdentity == nil else {
            // URLSession presents a client certificate only as a SecIdentity, answering the server's challenge; a
            // PEM certificate and key are not one, and this transport does not import them into the keychain.
            throw TransportError(
                .clientCertificate, url: request.url,
                message:
                    "URLSessionTransport presents no TLS client certificate, so mutual TLS (RFC 8705: tls_client_auth, certificate-bound tokens) is not available on Apple platforms; nothing was sent"
            )
        }
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(task, url: request.url, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Collects each task's data, refuses redirects and compressed answers, and enforces the size limit.
    private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private struct Pending {
            let url: URL
            let continuation: CheckedContinuation<TransportResponse, any Error>
            var data = Data()
            var oversized = false
            /// The `Content-Encoding` of an answer refused for it.
            var compressed: String?
            /// The 401 of a challenge for credentials, which is not answered.
            var challenged: HTTPURLResponse?
        }

        private let limit: Int
        private let lock = NSLock()
        private var pending: [Int: Pending] = [:]

        init(limit: Int) {
            self.limit = limit
        }

        func register(_ task: URLSessionTask, url: URL, continuation: CheckedContinuation<TransportResponse, any Error>) {
            lock.lock()
            pending[task.taskIdentifier] = Pending(url: url, continuation: continuation)
            lock.unlock()
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // Never follow: the 3xx itself is handed to the engine, which treats it as an error.
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            // The server's certificate is judged as the system judges it. A challenge for credentials (a 401 with HTTP
            // Basic or Digest) is never answered: the 401 and its challenges go to the engine as they came. Left to its
            // default, Linux's URLSession never completes such a request, and rejected it ends the task as cancelled:
            // the 401 is kept here and answered then.
            let method = challenge.protectionSpace.authenticationMethod
            if [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest, NSURLAuthenticationMethodDefault].contains(method) {
                lock.lock()
                pending[task.taskIdentifier]?.challenged = challenge.failureResponse as? HTTPURLResponse
                lock.unlock()
                completionHandler(.rejectProtectionSpace, nil)
            } else {
                completionHandler(.performDefaultHandling, nil)
            }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            // Refused before any of the body is read (and inflated), as the Linux transport refuses it.
            let coding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces)
            guard let coding, !coding.isEmpty, coding.lowercased() != "identity" else {
                completionHandler(.allow)
                return
            }
            lock.lock()
            pending[dataTask.taskIdentifier]?.compressed = coding
            lock.unlock()
            completionHandler(.cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            lock.lock()
            defer { lock.unlock() }
            guard var entry = pending[dataTask.taskIdentifier], !entry.oversized else { return }
            if entry.data.count + data.count > limit {
                entry.oversized = true
                pending[dataTask.taskIdentifier] = entry
                dataTask.cancel()
                return
            }
            entry.data.append(data)
            pending[dataTask.taskIdentifier] = entry
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            lock.lock()
            let entry = pending.removeValue(forKey: task.taskIdentifier)
            lock.unlock()
            guard let entry else { return }
            if let coding = entry.compressed {
                entry.continuation.resume(
                    throwing: TransportError(
                        .badAnswer, url: entry.url,
                        message:
                            "the server sent its answer compressed (Content-Encoding: \(TerminalText.escaped(String(coding.prefix(40))))) although the request accepted only identity; OAuthFlow does not decompress answers"
                    ))
                return
            }
            if entry.oversized {
                entry.continuation.resume(
                    throwing: TransportError(.tooLarge, url: entry.url, message: "the response body is larger than the \(limit) bytes accepted"))
                return
            }
            if error != nil, let challenged = entry.challenged {
                entry.continuation.resume(returning: Self.response(challenged, body: entry.data))
                return
            }
            if let error {
                entry.continuation.resume(
                    throwing: TransportError(URLSessionTransport.code(of: error), url: entry.url, message: error.localizedDescription))
                return
            }
            guard let http = task.response as? HTTPURLResponse else {
                entry.continuation.resume(throwing: TransportError(.badAnswer, url: entry.url, message: "no HTTP response"))
                return
            }
            entry.continuation.resume(returning: Self.response(http, body: entry.data))
        }

        /// `http` with `body` as a ``TransportResponse``. Foundation joins a name's repeated fields already; names that
        /// differ only in case are joined here, as AsyncHTTPClientTransport joins them (RFC 9110 §5.3).
        private static func response(_ http: HTTPURLResponse, body: Data) -> TransportResponse {
            let fields = http.allHeaderFields.compactMap { field -> (name: String, value: String)? in
                guard let name = field.key as? String, let value = field.value as? String else { return nil }
                return (name, value)
            }
            return TransportResponse(status: http.statusCode, headers: TransportResponse.combining(fields), body: body)
        }
    }
}
extension URLSessionTransport {
    /// The ``TransportError`` code of a URLSession failure.
    static func code(of error: any Error) -> TransportError.Code {
        guard let error = error as? URLError else { return .failed }
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .networkConnectionLost: return .unreachable
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
            .secureConnectionFailed:
            return .tls
        case .badServerResponse, .cannotParseResponse: return .badAnswer
        default: return .failed
        }
    }
}
#endif
