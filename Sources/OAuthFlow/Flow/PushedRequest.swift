import Foundation

/// A pushed authorization request's answer (RFC 9126 §2.2): the `request_uri` to send the browser with, and its lifetime.
struct PushedRequest {
    let requestURI: String
    /// Seconds the `request_uri` may be used for: the server's `expires_in`, at most ``longestLifetime``.
    let lifetime: TimeInterval

    /// Longer than any server gives (RFC 9126 suggests 5 to 600 seconds); a larger `expires_in` is read as this.
    static let longestLifetime: TimeInterval = 3600

    /// Reads the answer of `endpoint`.
    ///
    /// - Throws: ``AuthorizationServerError`` for an OAuth error; ``FlowError`` `pushedAuthorization` for a
    ///   redirect (never followed), another status, or an answer without a usable `request_uri` and `expires_in`;
    ///   a `request_uri` on another server than the endpoint's is never used.
    init(_ response: TransportResponse, endpoint: URL, provider: String) throws {
        let host = endpoint.host ?? "the server"
        if (300..<400).contains(response.status) {
            throw FlowError(
                .pushedAuthorization,
                "the pushed authorization request endpoint of `\(provider)` answered HTTP \(response.status) (a redirect); OAuthFlow does not follow redirects with credentials"
            )
        }
        let parsed = Result { try TokenResponseParser.fields(of: response, format: .json) }
        if case let .success(fields) = parsed, let error = TokenResponseParser.serverError(in: fields, status: response.status) { throw error }
        guard (200..<300).contains(response.status) else {
            throw FlowError(.pushedAuthorization, "the pushed authorization request endpoint at \(host) answered HTTP \(response.status)")
        }
        let fields: [String: JSONValue]
        switch parsed {
        case let .success(object): fields = object
        case let .failure(error):
            // Say what came back (an HTML page, a wrong content type), not only what is missing.
            let status = response.status
            throw FlowError(
                .pushedAuthorization, "the pushed authorization request endpoint at \(host) answered HTTP \(status), but not with JSON: \(error)")
        }
        guard let uri = fields["request_uri"]?.stringValue else {
            throw FlowError(.pushedAuthorization, "the pushed authorization request endpoint at \(host) answered without a `request_uri`")
        }
        guard !uri.isEmpty, uri.utf8.count <= 2048, uri.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw FlowError(.pushedAuthorization, "the `request_uri` from \(host) is empty, too long or holds spaces or control characters")
        }
        // RFC 9126 §2.2: a reference to the request this server stored. One that points at another server
        // would have the authorization server fetch a request someone else wrote: it is never used.
        // A URL must be https on the pushing server's origin: scheme, host and port (plain http only when the
        // pushing server itself is http on a loopback host).
        let scheme = uri.prefix { $0 != ":" }.lowercased()
        if scheme != "urn" {
            guard let url = URL(string: uri), Origin.same(url, endpoint),
                scheme == "https" || (scheme == "http" && Loopback.isLoopbackHost(endpoint.host ?? ""))
            else {
                throw FlowError(
                    .pushedAuthorization,
                    "the `request_uri` from \(host) (\(TerminalText.escaped(String(uri.prefix(80))))) is neither a URN nor an https URL on that server (same scheme, host and port); it is not used"
                )
            }
        }
        guard let seconds = fields["expires_in"]?.numberValue, seconds.isFinite, seconds > 0 else {
            throw FlowError(.pushedAuthorization, "the pushed authorization request endpoint at \(host) answered without a positive `expires_in`")
        }
        requestURI = uri
        lifetime = min(seconds, Self.longestLifetime)
    }
}
