import Crypto
import Foundation

/// A code a platform's own sign-in handed an app, redeemed by the app's server (Sign in with Apple in an app).
extension OAuthClient {
    /// Exchanges an authorization code that a platform's own sign-in gave an app (Sign in with Apple's
    /// `ASAuthorizationAppleIDCredential.authorizationCode`), sent to the app's server with that sign-in's identity
    /// token and the nonce the app made for it. The identity token is verified before the code is sent.
    ///
    /// - Throws: ``IDTokenError`` for an identity token or ID token that does not verify, or that names another user;
    ///   ``AuthorizationServerError`` when the token endpoint refuses the code; ``FlowError`` (`step_up` when the client
    ///   or the provider asks a step-up, which the platform's request could not), ``TransportError``.
    public func redeemPlatformCode(_ code: Secret, identityToken: Secret, nonce: Secret) async throws -> SignInOutcome {
        try await countingSignIn {
            // The platform's request asked no `acr_values` or `max_age`: a step-up would go unchecked, as in the device grant.
            try refuseStepUp(in: "a platform's own sign-in")
            let hashed = Secret(Hexadecimal.lowercase(Data(SHA256.hash(data: Data(nonce.value.utf8)))))
            let validator = try await idTokenValidator()
            let presented = try await validator.validate(identityToken, nonce: hashed, accessToken: nil)
            var parameters = [("grant_type", "authorization_code"), ("code", code.value)]
            parameters += try configuration.resourceParameters()
            let response = try await tokenRequest(parameters)
            let tokens = try explainingEncoding(sent: parameters) {
                try TokenResponseParser.tokenSet(
                    from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.grantedSeparator,
                    defaultTokenType: provider.policy.defaultTokenType, zeroExpiresIn: provider.policy.zeroExpiresIn,
                    requestedScopes: configuration.scopes ?? provider.policy.scopes.defaults, previous: nil, now: clock.now())
            }
            // The code is the credential: only the answer's ID token says whose it was.
            guard let idToken = tokens.idToken else {
                throw IDTokenError(.missing, "provider `\(provider.id)` answered the code without an ID token, which would say whose code it was")
            }
            let verified = try await validator.validate(idToken, nonce: nil, accessToken: tokens.accessToken)
            guard verified.subject == presented.subject else {
                throw IDTokenError(.subjectMismatch, "the code was issued for another user than the identity token the app sent")
            }
            logger.debug("platform code redeemed", metadata: ["provider": "\(provider.id)", "sub": "\(verified.subject)"])
            return SignInOutcome(tokens: tokens, idToken: verified)
        }
    }
}
