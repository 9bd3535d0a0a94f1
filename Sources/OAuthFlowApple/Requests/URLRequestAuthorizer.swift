import Foundation
import OAuthFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends an app's own `URLRequest`s to its APIs with a session's access token, through the app's `URLSession`.
///
/// `Authorization: Bearer`, or for DPoP-bound tokens `Authorization: DPoP` and a proof for the request's method and URL
/// (RFC 9449 §7), made with the session's key (a Secure Enclave key included). The token is refreshed first when it
/// is stale (`TokenManager/validTokens()`). A 401 whose challenge says `invalid_token` (or names no error) is
/// answered by one refresh and one retry (RFC 6750 §3.1); a 401 `use_dpop_nonce` by one retry with the nonce the API
/// gave (RFC 9449 §9). Bodies are the app's session's to limit: none of the 1 MiB cap of the OAuth transport.
///
/// The token never goes to another origin: a redirect to another scheme, host or port loses `Authorization` and `DPoP`.
/// Tokens bound to a client certificate (RFC 8705) are refused: the app's session does not present it.
public struct URLRequestAuthorizer: Sendable {
    let manager: TokenManager
    private let send: @Sendable (URLRequest) async throws -> (Data, URLResponse)
    private let clock: any DateClock
    /// The latest `DPoP-Nonce` of each origin.
    private let nonces = Locked<[String: String]>([:])

    /// - Parameters:
    ///   - manager: The session's manager (`oauth.session(provider, account:)`).
    ///   - session: The app's session; `URLSession.shared` by default.
    public init(_ manager: TokenManager, session: URLSession = .shared) {
        self.init(manager, clock: SystemDateClock()) { request in
            try await session.data(for: request, delegate: RedirectGuard())
        }
    }

    init(_ manager: TokenManager, clock: any DateClock, send: @escaping @Sendable (URLRequest) async throws -> (Data, URLResponse)) {
        self.manager = manager
        self.clock = clock
        self.send = send
    }

    /// `request` with the session's current access token (refreshed first when stale), and a DPoP proof when the
    /// tokens are DPoP-bound.
    ///
    /// - Throws: `FlowError` `insecureEndpoint` for plain http to a host that is not loopback, `certificateBinding`
    ///   for certificate-bound tokens, `dpop` and `dpopKeyMissing` from the proof; `SessionError` from the refresh;
    ///   `URLError` `badURL` for a request without a URL.
    public func authorize(_ request: URLRequest) async throws -> URLRequest {
        let url = try target(of: request)
        return try await authorize(request, url: url, tokens: try await manager.validTokens())
    }

    /// Sends `request` with the session's access token (``authorize(_:)``) through the app's session, retrying once
    /// after a 401 `invalid_token` (with refreshed tokens) and once after a 401 `use_dpop_nonce` (with the API's nonce).
    ///
    /// - Returns: The answer's body and response: the retry's after a retry, whatever its status.
    /// - Throws: what ``authorize(_:)`` throws, what the app's session throws, `TransportError` `badAnswer` for an
    ///   answer that is not HTTP.
    public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let url = try target(of: request)
        let origin = Self.origin(of: url)
        var tokens = try await manager.validTokens()
        var refreshed = false
        var nonceRetried = false
        while true {
            let nonce = nonces.withLock { $0[origin] }
            let (data, response) = try await send(try await authorize(request, url: url, tokens: tokens))
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(.badAnswer, url: url, message: "the answer is not an HTTP response")
            }
            let given = http.value(forHTTPHeaderField: "DPoP-Nonce")
            if let given { nonces.withLock { $0[origin] = given } }
            guard http.statusCode == 401 else { return (data, http) }
            switch Self.challengeError(http.value(forHTTPHeaderField: "WWW-Authenticate")) {
            case "use_dpop_nonce" where tokens.proofKey != nil && !nonceRetried && given != nil && given != nonce:
                nonceRetried = true
            case nil where !refreshed, "invalid_token" where !refreshed:
                refreshed = true
                tokens = try await manager.refresh(replacing: tokens.accessToken).tokens
            default:
                return (data, http)
            }
        }
    }

    private func authorize(_ request: URLRequest, url: URL, tokens: TokenSet) async throws -> URLRequest {
        guard !tokens.isCertificateBound else {
            throw FlowError.certificateBindingRefused(
                "the access token is bound to a client certificate (RFC 8705), which an app's URLSession does not present; it is not sent (TokenManager.perform presents it)"
            )
        }
        var authorized = request
        guard let key = tokens.proofKey else {
            authorized.setValue("Bearer \(tokens.accessToken.value)", forHTTPHeaderField: "Authorization")
            return authorized
        }
        let nonce = nonces.withLock { $0[Self.origin(of: url)] }
        let proof = try await key.proof(
            httpMethod: request.httpMethod ?? "GET", url: url, accessToken: tokens.accessToken, nonce: nonce, now: clock.now())
        authorized.setValue("DPoP \(tokens.accessToken.value)", forHTTPHeaderField: "Authorization")
        authorized.setValue(proof, forHTTPHeaderField: "DPoP")
        return authorized
    }

    /// The request's URL, which must be https (or http to a loopback host).
    private func target(of request: URLRequest) throws -> URL {
        guard let url = request.url else { throw URLError(.badURL) }
        try FlowError.requireSecure(url)
        return url
    }

    /// `scheme://host:port`, lower-cased, with the scheme's default port.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "http" ? 80 : 443)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// The `error` of a `Bearer` or `DPoP` challenge (RFC 6750 §3, RFC 9449 §7.1); nil when there is none.
    static func challengeError(_ header: String?) -> String? {
        guard let header,
            let match = header.range(of: #"(^|[\s,])error\s*=\s*"?([A-Za-z0-9_]+)"?"#, options: .regularExpression)
        else { return nil }
        let text = header[match]
        guard let equals = text.firstIndex(of: "=") else { return nil }
        return text[text.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\" \t"))
    }

    /// Follows a redirect within the request's origin as the session would, and one to another origin without
    /// `Authorization` and `DPoP`: the token and its proof are the API's alone.
    final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(Self.redirect(request, from: task.originalRequest?.url ?? response.url))
        }

        static func redirect(_ request: URLRequest, from original: URL?) -> URLRequest {
            guard let target = request.url, let original, URLRequestAuthorizer.origin(of: target) == URLRequestAuthorizer.origin(of: original)
            else {
                var stripped = request
                stripped.setValue(nil, forHTTPHeaderField: "Authorization")
                stripped.setValue(nil, forHTTPHeaderField: "DPoP")
                return stripped
            }
            return request
        }
    }
}
