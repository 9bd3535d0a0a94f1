import Foundation

extension OAuth {
    /// On the app's server: redeems the authorization code a platform's own sign-in gave the app (Sign in with Apple
    /// in an app: `AppleIDSignIn.Result.authorizationCode`), with that sign-in's identity token and nonce, and stores
    /// the session as `account`'s: its refresh token is what the server keeps, refreshes with, and revokes when the user
    /// deletes their account (``deleteAccount(_:account:)``).
    ///
    /// The client is the configuration's for `name`: for Apple, the app's bundle identifier as the client id, with the
    /// Sign in with Apple key that signs the client secret. ``OAuthClient/redeemPlatformCode(_:identityToken:nonce:)``
    /// says what is checked.
    ///
    /// - Returns: The stored session, with the verified ID token's claims.
    /// - Throws: ``ClientSettingsError`` without a client, ``ProviderError``, what
    ///   ``OAuthClient/redeemPlatformCode(_:identityToken:nonce:)`` throws, and store errors.
    @discardableResult
    public func redeemPlatformCode(
        _ code: Secret, identityToken: Secret, nonce: Secret, issuedTo name: String, account: String = "default"
    ) async throws -> SignInResult {
        let settings = try clientSettings(for: name)
        let provider = try resolve(name, variables: settings.variables)
        let run = SignInRun(client: client(of: provider, configuration: settings.configuration(redirectURI: nil)))
        let outcome = try await run.client.redeemPlatformCode(code, identityToken: identityToken, nonce: nonce)
        let result = try await run.store(outcome, account: account, in: store)
        forget(SessionKey(providerID: name, account: account))
        return result
    }
}
