import Foundation
import Logging

/// Refreshing an access token (RFC 6749 §6).
extension OAuthClient {
    /// Fetches the keys a refreshed ID token of `tokens` will be checked with, before the refresh token is
    /// spent: the check after the answer does not wait for them, and this process's first answer is not the
    /// one whose record is delayed (the response path has run once, warm, before the answer that matters).
    /// Nothing for plain OAuth or a session without an ID token; a failure is left for the check.
    func prefetchRefreshKeys(for tokens: TokenSet) async {
        guard provider.isOpenIDConnect, tokens.idToken != nil, tokens.refreshToken != nil else { return }
        await (try? idTokenValidator())?.prefetchKeys()
    }

    /// Uses the refresh token for a new access token (RFC 6749 §6).
    ///
    /// - Parameters:
    ///   - tokens: The session's tokens: their refresh token is sent, and kept when the server sends no new one.
    ///   - scopes: The scopes to ask for, none beyond those granted (RFC 6749 §6); nil sends no `scope`, which
    ///     asks for the same scopes again.
    ///   - arrived: Called synchronously with a successful (2xx) answer, unparsed, on the thread that read its last
    ///     byte, so that a caller can make it durable at once.
    ///   - received: Called once the answer is parsed, with what may be kept of it before any check: with a new ID
    ///     token yet to be checked, ``TokenSet/keepingRefreshToken(of:)``.
    /// - Throws: ``AuthorizationServerError`` (`invalid_grant` when the refresh token is
    ///   spent or revoked), ``FlowError``, or ``TransportError``.
    public func refresh(
        _ tokens: TokenSet, scopes: [String]? = nil, arrived: (@Sendable (TransportResponse) -> Void)? = nil,
        received: (@Sendable (TokenSet) async throws -> Void)? = nil
    ) async throws -> TokenSet {
        guard let refreshToken = tokens.refreshToken else {
            throw FlowError(.noRefreshToken, "the session has no refresh token; sign in again")
        }
        var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken.value)]
        // No scopes named asks for those granted again (RFC 6749 §6): no parameter, whatever `scopes.parameter` says.
        if let scopes { parameters += provider.policy.scopes.parameters(for: scopes) }
        // RFC 8707 §2: the same resources as the authorization, so the new access token has the same audience.
        parameters += try configuration.resourceParameters()
        // Callback parameters the provider wants on every refresh (`token_request.callback_params_on_refresh`).
        for name in provider.policy.tokenRequest.refreshCallbackParameters {
            if let value = tokens.callbackParameters?[name] { parameters.append((name, value)) }
        }
        let provider = self.provider
        let clock = self.clock
        let parse = { @Sendable (response: TransportResponse) throws -> TokenSet in
            try TokenResponseParser.tokenSet(
                from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.grantedSeparator,
                defaultTokenType: provider.policy.defaultTokenType, zeroExpiresIn: provider.policy.zeroExpiresIn,
                requestedScopes: scopes ?? tokens.scopes, previous: tokens, now: clock.now())
        }
        /// What may be kept before the ID token is checked.
        let keepable = { @Sendable (refreshed: TokenSet) -> TokenSet in
            let unchecked = provider.isOpenIDConnect && refreshed.idToken != nil && refreshed.idToken != tokens.idToken
            return unchecked ? refreshed.keepingRefreshToken(of: tokens) : refreshed
        }
        var arrival: (@Sendable (TransportResponse) -> Void)?
        if let arrived {
            arrival = { response in
                if (200..<300).contains(response.status) { arrived(response) }
            }
        }
        // Certificate-bound tokens are renewed over mutual TLS with the same certificate (RFC 8705 §3), so the new ones are bound too.
        let keeping = tokens.isCertificateBound
        let response = try await tokenRequest(parameters, proofKey: tokens.proofKey, refreshing: true, keepingBinding: keeping, arrival: arrival)
        let refreshed = try bound(explainingEncoding(sent: parameters) { try parse(response) }, key: tokens.proofKey, keepingBinding: keeping)
        let unchecked = keepable(refreshed) != refreshed
        try await received?(keepable(refreshed))
        if unchecked, let idToken = refreshed.idToken {
            // A refreshed ID token carries no nonce (OpenID Connect Core §12.2) but must name the same subject.
            _ = try await idTokenValidator().validateRefreshed(idToken, previous: tokens.idToken, accessToken: refreshed.accessToken)
        }
        logger.debug(
            "tokens refreshed",
            metadata: [
                "provider": "\(provider.id)", "rotated": "\(refreshed.refreshToken != tokens.refreshToken)",
            ])
        return refreshed
    }
}
