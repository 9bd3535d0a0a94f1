import Foundation
import OAuthFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends an app's own `URLRequest`s to its APIs with a session's access token, through the app's `URLSession`:
/// `Authorization: Bearer`, or `DPoP` and a proof (RFC 9449 §7); a 401 refusing the token gets one refresh and retry.
///
/// Tokens bound to a client certificate (RFC 8705) are refused: the app's session does not present it.
public struct URLRequestAuthorizer: Sendable {
    let manager: TokenManager
    private let send: @Sendable (URLRequest, RedirectGuard) async throws -> (Data, URLResponse)
    private let clock: any DateClock
    /// The latest `DPoP-Nonce` of each origin.
    private let nonces = Locked<[Origin: String]>([:])

    /// - Parameters:
    ///   - manager: The session's manager (`oauth.session(provider, account:)`).
    ///   - session: The app's session; `URLSession.shared` by default.
    public init(_ manager: TokenManager, session: URLSession = .shared) {
        self.init(manager, clock: SystemDateClock()) { request, redirects in
            try await session.data(for: request, delegate: redirects)
        }
    }

    /// Sends through `send`, which follows redirects as `RedirectGuard` says.
    init(_ manager: TokenManager, clock: any DateClock, send: @escaping @Sendable (URLRequest, RedirectGuard) async throws -> (Data, URLResponse)) {
        self.manager = manager
        self.clock = clock
        self.send = send
    }

    /// Sends through `send`, which follows no redirect.
    init(_ manager: TokenManager, clock: any DateClock, send: @escaping @Sendable (URLRequest) async throws -> (Data, URLResponse)) {
        self.init(manager, clock: clock) { request, _ in try await send(request) }
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
    /// A request whose body is a stream is sent once: after a 401 its answer is returned (give `httpBody` for a retry).
    ///
    /// - Returns: The answer's body and response: the retry's after a retry, whatever its status.
    /// - Throws: what ``authorize(_:)`` throws, what the app's session throws, `TransportError` `badAnswer` for an
    ///   answer that is not HTTP.
    public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let url = try target(of: request)
        let origin = Origin(url)
        var tokens = try await manager.validTokens()
        var refreshed = false
        var nonceRetried = false
        while true {
            let nonce = origin.flatMap { origin in nonces.withLock { $0[origin] } }
            let sent = tokens
            let redirects = RedirectGuard { redirected in
                try await authorize(redirected, url: try target(of: redirected), tokens: sent)
            }
            let (data, response) = try await send(try await authorize(request, url: url, tokens: tokens), redirects)
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(.badAnswer, url: url, message: "the answer is not an HTTP response")
            }
            let given = http.value(forHTTPHeaderField: "DPoP-Nonce")
            if let given, let origin { nonces.withLock { $0[origin] = given } }
            // A stream's body was read by this send: sending the request again would send what is left of it.
            guard http.statusCode == 401, request.httpBodyStream == nil else { return (data, http) }
            switch Self.challengeError(http.value(forHTTPHeaderField: "WWW-Authenticate"), scheme: tokens.proofKey == nil ? "Bearer" : "DPoP") {
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
        let nonce = Origin(url).flatMap { origin in nonces.withLock { $0[origin] } }
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

    /// The `error` of the `WWW-Authenticate` challenge of `scheme` (`Bearer`, RFC 6750 §3; `DPoP`, RFC 9449 §7.1),
    /// compared case-insensitively; other schemes' challenges are not read. Nil when there is no such challenge or
    /// it names no error.
    static func challengeError(_ header: String?, scheme: String) -> String? {
        guard let header else { return nil }
        return TransportResponse.Challenge.parse(header).first { $0.scheme.caseInsensitiveCompare(scheme) == .orderedSame }?.error
    }

    /// Follows a redirect within the request's origin as the session would, and one to another origin without
    /// `Authorization` and `DPoP`: the token and its proof are the API's alone. Within the origin, a DPoP proof is made
    /// again for the redirected method and URL (`reprove`), or dropped with the token when it cannot be.
    final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
        /// The redirected request authorized anew: the token and a proof for its own method and URL.
        let reprove: (@Sendable (URLRequest) async throws -> URLRequest)?

        init(reprove: (@Sendable (URLRequest) async throws -> URLRequest)? = nil) {
            self.reprove = reprove
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            let kept = Self.redirect(request, from: task.originalRequest?.url ?? response.url)
            guard kept.value(forHTTPHeaderField: "DPoP") != nil else {
                completionHandler(kept)
                return
            }
            Task { completionHandler(await self.reproved(kept)) }
        }

        /// `request`, a redirect within the origin that carries the first request's proof, with a proof of its own;
        /// without `Authorization` and `DPoP` when none can be made.
        func reproved(_ request: URLRequest) async -> URLRequest {
            guard let reprove, let proved = try? await reprove(request) else { return Self.stripped(request) }
            return proved
        }

        static func redirect(_ request: URLRequest, from original: URL?) -> URLRequest {
            guard let target = request.url, let original, Origin.same(target, original)
            else { return stripped(request) }
            return request
        }

        static func stripped(_ request: URLRequest) -> URLRequest {
            var stripped = request
            stripped.setValue(nil, forHTTPHeaderField: "Authorization")
            stripped.setValue(nil, forHTTPHeaderField: "DPoP")
            return stripped
        }
    }
}
