import Foundation

/// A failure to get any HTTP response: connection refused, timeout, oversized body; ``code`` says
/// which, ``message`` says it in a sentence.
public struct TransportError: MessageError, Hashable {
    public typealias Code = ErrorCode<TransportError>

    /// What went wrong, for code to branch on (a timeout may be worth a retry, an oversized answer never).
    public let code: Code
    public let url: String
    public let message: String

    public init(_ code: Code = .failed, url: URL, message: String) {
        // The URL of a request never carries a secret in OAuthFlow (they go in bodies and headers),
        // but drop any query anyway so a log line cannot leak one.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        self.code = code
        self.url = components?.string ?? "<url>"
        self.message = message
    }

    public var description: String { "request to \(url) failed: \(message)" }
}

extension ErrorCode where Domain == TransportError {
    /// No complete answer within the request's total deadline, or no connection within it.
    public static let timedOut = Self("timed_out")
    /// The server could not be reached: a refused connection, an unknown host.
    public static let unreachable = Self("unreachable")
    /// The TLS handshake failed, or the server's certificate is not trusted.
    public static let tls = Self("tls")
    /// The answer's body is larger than the transport accepts.
    public static let tooLarge = Self("too_large")
    /// The server answered with something that is no usable HTTP answer: no head, a compressed body,
    /// a connection closed or a body stalled midway.
    public static let badAnswer = Self("bad_answer")
    /// The URL is plain http to a host that is not loopback, which no token travels over.
    public static let insecure = Self("insecure")
    /// The client certificate or its key cannot be used (or this transport cannot present one).
    public static let clientCertificate = Self("client_certificate")
    /// Any other failure.
    public static let failed = Self("failed")
}

extension TransportError: CodedError {}
