import Foundation

extension OAuth {
    /// On the app's server: redeems the authorization code a platform's own sign-in gave the app (Sign in with Apple
    /// in an app: `AppleIDSignIn.Result.authorizationCode`), with that sign-in's identity token and nonce, and stores
    /// the session, by default under the verified `sub` as its account. The client is the configuration's for `name`.
    ///
    /// - Parameters:
    ///   - code: The code the app received.
    ///   - identityToken: The identity token of the same sign-in.
    ///   - nonce: The nonce the app made, whose SHA-256 it sent the platform.
    ///   - name: The provider whose client redeems it.
    ///   - account: The session's account: nil (the default) for the verified `sub`, or the host's own id of the user,
    ///     never one the app sent unchecked.
    /// - Returns: The stored session, with the verified ID token's claims.
    /// - Throws: ``ClientSettingsError`` without a client, ``ProviderError``, what
    ///   ``OAuthClient/redeemPlatformCode(_:identityToken:nonce:)`` throws, and store errors.
    @discardableResult
    public func redeemPlatformCode(
        _ code: Secret, identityToken: Secret, nonce: Secret, issuedTo name: String, account: String? = nil
    ) async throws -> SignInResult {
        let settings = try clientSettings(for: name)
        let provider = try resolve(name, variables: settings.variables)
        let run = SignInRun(client: client(of: provider, configuration: settings.configuration(redirectURI: nil)))
        let outcome = try await run.client.redeemPlatformCode(code, identityToken: identityToken, nonce: nonce)
        // The verified subject names the session unless the host keys its users otherwise: never a value the app sent.
        let result = try await run.store(outcome, account: account ?? outcome.idToken?.subject ?? "default", in: store)
        forget(result.session.key)
        return result
    }
}
