import Crypto
import Foundation
import Logging

/// The authorization response (RFC 6749 §4.1.2): the callback checked, its code exchanged at the token endpoint, the ID token verified.
extension OAuthClient {
    /// How the authorization response (RFC 6749 §4.1.2) came back from the browser.
    public enum AuthorizationResponse: Sendable {
        /// The redirect the browser was sent to, its parameters in the query.
        case callback(URL)
        /// A `response_mode=form_post` body (OAuth 2.0 Form Post Response Mode) posted to the redirect URI.
        case formPost(Data)
    }

    /// What a completed authorization established: the tokens and, for OpenID Connect, the verified ID token.
    public struct SignInOutcome: Sendable {
        public let tokens: TokenSet
        /// The ID token's claims, verified (signature, issuer, audience, expiry, nonce, `at_hash`); nil for plain OAuth.
        public let idToken: IDTokenClaims?
        /// What else the provider put in the callback besides `code`, `state` and `iss`: Sign in with Apple's `user`
        /// (the name and e-mail, sent on the first consent only), a JSON value parsed as such. It is not signed:
        /// the descriptor's `profile` reads it (`callback.` sources) only where the provider sends nothing better.
        public var callback: [String: JSONValue] = [:]
    }

    /// The one way a sign-in started with ``startAuthorization()`` ends: checks the authorization response
    /// (``check(_:pending:)``), exchanges its code for tokens and verifies the ID token.
    ///
    /// - Parameters:
    ///   - response: How the response came back: the redirect's URL, or a `form_post` body.
    ///   - pending: What ``startAuthorization()`` returned for this sign-in.
    ///   - accepted: Called once the response passed its checks, just before its code is sent to the token endpoint;
    ///     what it throws is thrown instead, and the code is not sent.
    /// - Throws: ``AuthorizationServerError`` for an error redirect or a token endpoint error;
    ///   ``FlowError`` for a rejected callback (state, `iss`, missing code, second completion)
    ///   or an unusable token response; ``IDTokenError`` for an ID token that does not verify;
    ///   ``TransportError`` when the server cannot be reached.
    public func finishSignIn(
        _ response: AuthorizationResponse, pending: PendingAuthorization, accepted: @Sendable () throws -> Void = {}
    ) async throws -> SignInOutcome {
        try await countingSignIn {
            let callback =
                switch response {
                case let .callback(url): try AuthorizationCallback(url: url, expectedRedirectURI: pending.redirectURI)
                case let .formPost(body): try AuthorizationCallback(formBody: body)
                }
            let code = try await accept(callback, pending: pending)
            try accepted()
            return try await exchange(code, pending: pending)
        }
    }

    /// Runs a sign-in's last step and counts how it ended (`oauthflow_sign_ins_total`).
    func countingSignIn(_ step: () async throws -> SignInOutcome) async throws -> SignInOutcome {
        do {
            let outcome = try await step()
            instruments.count(.signIns, provider.id, "success", Instruments.none)
            return outcome
        } catch {
            instruments.count(.signIns, provider.id, "failure", Instruments.code(of: error))
            throw error
        }
    }

    /// Checks a callback (``AuthorizationCallback/validate(for:provider:)``), a JWT-secured one (JARM) verified first,
    /// and one without `iss` under `iss_parameter: if_present` against the server's metadata (RFC 9207 §2.4).
    ///
    /// - Returns: The authorization code.
    public func check(_ callback: AuthorizationCallback, pending: PendingAuthorization) async throws -> Secret {
        let callback = try await unsealed(callback)
        let known = knownProvider
        let code = try callback.validate(for: pending, provider: known)
        if let signature = known.policy.callbackSignature { try checkSignature(signature, of: callback) }
        guard callback.parameters["iss"] == nil, !known.isDiscovered, known.usesDiscovery, known.policy.issParameter == .ifPresent,
            let discovered = try? await discoveredProvider()
        else {
            // No metadata in hand (a descriptor whose endpoints are all its own, a document that cannot be had):
            // `if_present` stays what it says.
            return code
        }
        return try callback.validate(for: pending, provider: discovered)
    }

    /// Checks the signature the provider put in the callback (`authorization.callback_signature`) with the
    /// client secret, in constant time; checked after `state`, before the code is spent.
    ///
    /// - Throws: ``FlowError`` `invalidCallback` when it is missing or wrong, or there is no client secret to check it with.
    nonisolated func checkSignature(_ signature: ProviderDescriptor.Authorization.CallbackSignature, of callback: AuthorizationCallback) throws {
        guard let secret = configuration.clientSecret else {
            throw FlowError(
                .invalidCallback, "provider `\(provider.id)` signs its callbacks with the client secret, and this client has none to check them with")
        }
        guard let sent = callback.parameters[signature.parameter] else {
            throw FlowError(
                .invalidCallback, "the callback carries no `\(signature.parameter)` signature, which provider `\(provider.id)` always sends")
        }
        let message = callback.parameters.filter { $0.key != signature.parameter }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        let mac = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(secret.value.utf8)))
        let expected = Hexadecimal.lowercase(Data(mac))
        guard ConstantTime.equals(expected, sent.lowercased()) else {
            throw FlowError(
                .invalidCallback,
                "the callback's `\(signature.parameter)` signature does not match its parameters; it was not sent by provider `\(provider.id)`")
        }
    }

    /// A callback that passed every check: its code, and its parameters, those of the verified JWT for a
    /// JWT-secured response, which the token request and the session read.
    private struct AcceptedCallback: Sendable {
        let code: Secret
        let callback: AuthorizationCallback
    }

    /// Checks a parsed callback once: the pending authorization is this client's and not yet completed, a
    /// JWT-secured response is verified, and ``check(_:pending:)`` passes.
    private func accept(_ callback: AuthorizationCallback, pending: PendingAuthorization) async throws -> AcceptedCallback {
        guard pending.providerID == provider.id else {
            throw FlowError(.invalidCallback, "the pending authorization is for provider `\(pending.providerID)`, not `\(provider.id)`")
        }
        guard !hasCompleted(pending.state.value) else {
            throw FlowError(.alreadyCompleted, "this authorization was already completed; start a new one")
        }
        let callback = try await unsealed(callback)
        return AcceptedCallback(code: try await check(callback, pending: pending), callback: callback)
    }

    /// The token request for an accepted callback's code, its answer read, and the ID token verified.
    private func exchange(_ accepted: AcceptedCallback, pending: PendingAuthorization) async throws -> SignInOutcome {
        guard !hasCompleted(pending.state.value) else {
            throw FlowError(.alreadyCompleted, "this authorization was already completed; start a new one")
        }
        let (code, callback) = (accepted.code, accepted.callback)
        // Mark before the network call: a second callback racing this one must not also spend the code.
        rememberCompleted(pending.state.value)
        logger.debug("callback accepted", metadata: ["provider": "\(provider.id)", "code": "\(code)"])
        var parameters = [
            ("grant_type", "authorization_code"),
            ("code", code.value),
            ("redirect_uri", pending.redirectURI.absoluteString),
        ]
        if let pkce = pending.pkce { parameters.append(("code_verifier", pkce.verifier.value)) }
        parameters += try configuration.resourceParameters()
        // Callback parameters the provider wants back in the exchange (`token_request.callback_params`).
        for name in provider.policy.tokenRequest.callbackParameters {
            if let value = callback.parameters[name] { parameters.append((name, value)) }
        }
        let response = try await tokenRequest(parameters, proofKey: pending.proofKey)
        var tokens = try bound(
            explainingEncoding(sent: parameters) {
                try TokenResponseParser.tokenSet(
                    from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.grantedSeparator,
                    defaultTokenType: provider.policy.defaultTokenType, zeroExpiresIn: provider.policy.zeroExpiresIn,
                    requestedScopes: pending.scopes, previous: nil, now: clock.now())
            }, key: pending.proofKey)
        // Callback parameters every refresh sends (`token_request.callback_params_on_refresh`), kept with the tokens.
        let kept = provider.policy.tokenRequest.refreshCallbackParameters.compactMap { name in
            callback.parameters[name].map { (name, $0) }
        }
        if !kept.isEmpty { tokens.callbackParameters = Dictionary(kept) { first, _ in first } }
        var verified: IDTokenClaims?
        if provider.isOpenIDConnect, pending.scopes.contains("openid") {
            guard let idToken = tokens.idToken else {
                throw IDTokenError(.missing, "provider `\(provider.id)` returned no ID token for an OpenID Connect sign-in")
            }
            let claims = try await idTokenValidator().validate(idToken, nonce: pending.nonce, accessToken: tokens.accessToken)
            try Self.checkStepUp(claims, pending: pending, now: clock.now())
            logger.debug("ID token verified", metadata: ["provider": "\(provider.id)", "sub": "\(claims.subject)"])
            verified = claims
        }
        logger.debug(
            "tokens issued",
            metadata: [
                "provider": "\(provider.id)", "scopes": "\(tokens.scopes.joined(separator: " "))",
                "refresh_token": "\(tokens.refreshToken != nil)", "id_token": "\(tokens.idToken != nil)",
            ])
        var outcome = SignInOutcome(tokens: tokens, idToken: verified)
        outcome.callback = Self.callbackFields(callback.parameters)
        return outcome
    }

    /// The callback's other parameters: at most 16, of at most 8 KiB each; a JSON object or array is parsed.
    static func callbackFields(_ parameters: [String: String]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }).prefix(32)
        where !["code", "state", "iss", "session_state"].contains(name) && value.utf8.count <= 8192 && fields.count < 16 {
            if value.first == "{" || value.first == "[", let parsed = try? ServerJSON.value(Data(value.utf8)) {
                fields[name] = parsed
            } else {
                fields[name] = .string(value)
            }
        }
        return fields
    }

    /// Refuses a step-up, the client's or the provider's, in a sign-in whose request cannot ask it: nothing would check it.
    ///
    /// - Parameter route: The sign-in, as the message names it.
    /// - Throws: ``FlowError`` `step_up` when a step-up is asked.
    func refuseStepUp(in route: String) throws {
        let stepUp = try PendingAuthorization.Request.authentication(configuration, provider)
        guard stepUp.acrValues.isEmpty, stepUp.maximumAge == nil else {
            throw FlowError(
                .stepUp,
                "a step-up (`acr_values`, `max_age`), asked by the client or of every sign-in at `\(provider.id)` (`authorization.acr_values`, `max_age`), cannot be asked of \(route): sign in through the browser"
            )
        }
    }

    /// What a step-up asked of the ID token (OpenID Connect Core §3.1.2.1, RFC 9470): with `max_age`, an `auth_time`
    /// no further back than it (a minute of clock skew allowed); with `acr_values`, an `acr` among them.
    ///
    /// - Throws: ``IDTokenError`` `authentication_too_old` or `acr_not_satisfied`.
    static func checkStepUp(_ claims: IDTokenClaims, pending: PendingAuthorization, now: Date) throws {
        if let age = pending.maximumAuthenticationAge {
            guard let authenticated = claims.all["auth_time"]?.numericDate else {
                throw IDTokenError(.authenticationTooOld, "the ID token has no `auth_time` (a number of seconds), which `max_age` asks for")
            }
            let elapsed = now.timeIntervalSince1970 - authenticated
            guard elapsed <= Double(age) + 60 else {
                throw IDTokenError(
                    .authenticationTooOld,
                    "the user authenticated \(Int(elapsed)) s before the callback, longer ago than the `max_age` of \(age) s asked for")
            }
        }
        if let asked = pending.acrValues, !asked.isEmpty {
            guard let acr = claims.all["acr"]?.stringValue, asked.contains(acr) else {
                let named = claims.all["acr"]?.stringValue.map { "`\(TerminalText.escaped(String($0.prefix(100))))`" } ?? "none"
                throw IDTokenError(
                    .acrNotSatisfied, "the ID token's `acr` is \(named), not one of the `acr_values` asked for (\(asked.joined(separator: " ")))")
            }
        }
    }
}
