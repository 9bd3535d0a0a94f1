import Foundation

/// JWT-secured authorization responses (JARM): the callback's one `response` parameter, a JWT the server signed,
/// verified and read in place of the redirect's own parameters.
extension OAuthClient {
    /// The parameters that carry the answer of a plain callback; beside a `response` JWT they are refused.
    static let plainResponseParameters = ["code", "state", "error", "iss", "id_token", "access_token"]

    /// The callback as the engine checks it: for a provider with a JWT response mode (`jwt`, `query.jwt`,
    /// `form_post.jwt`), the claims of its verified `response` JWT (``IDTokenValidator`` checks the signature with the
    /// provider's keys, `iss`, `aud` and `exp`); for any other, the callback itself.
    ///
    /// A callback without `response`, with it twice, or with `code`, `state`, `error` or `iss` beside it is refused:
    /// a response mode that was asked for is never downgraded to unsigned parameters. `state` and `iss` inside are then
    /// checked as a plain callback's are (``AuthorizationCallback/validate(for:provider:)``), and an `error` inside
    /// is the provider's error.
    /// - Throws: ``FlowError`` `invalidCallback`; ``IDTokenError`` `keysUnavailable` when the provider's keys cannot be had.
    func unsealed(_ callback: AuthorizationCallback) async throws -> AuthorizationCallback {
        guard knownProvider.policy.responseMode.isJWT, !callback.isFromResponseJWT else { return callback }
        let mode = knownProvider.policy.responseMode.rawValue
        guard let response = callback.parameters["response"] else {
            let plain =
                callback.parameters["error"].map {
                    " It carries an unsigned `error=\(TerminalText.escaped(String($0.prefix(60))))`, which is not believed."
                } ?? ""
            throw FlowError(
                .invalidCallback,
                "the callback carries no `response` JWT, and provider `\(provider.id)` answers with signed responses (`response_mode: \(mode)`); nothing was sent to the token endpoint.\(plain)"
            )
        }
        if callback.repeated.contains("response") {
            throw FlowError(.invalidCallback, "the callback repeats the `response` parameter")
        }
        let beside = Self.plainResponseParameters.filter { callback.parameters[$0] != nil }
        guard beside.isEmpty else {
            let names = beside.map { "`\($0)`" }.joined(separator: ", ")
            throw FlowError(
                .invalidCallback,
                "the callback carries \(names) beside its signed `response`: a JWT-secured response carries nothing else, so it is refused; nothing was sent to the token endpoint"
            )
        }
        let claims: [String: JSONValue]
        do {
            claims = try await idTokenValidator().validateAuthorizationResponse(response)
        } catch let error as IDTokenError where error.code != .keysUnavailable {
            // The provider's keys could not be had: that fails the sign-in; anything else is a response not to believe.
            throw FlowError(.invalidCallback, "\(error.message); nothing was sent to the token endpoint")
        }
        var items: [(String, String)] = []
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) where !["aud", "exp", "iat", "nbf", "jti"].contains(name) {
            if let text = value.stringValue { items.append((name, text)) }
        }
        var unsealed = AuthorizationCallback(items: items)
        unsealed.isFromResponseJWT = true
        return unsealed
    }
}
