import Crypto
import Foundation
import OAuthFlow

/// Sign in with Apple in an app, natively: the system's sheet (`ASAuthorizationAppleIDProvider`, through an
/// ``AppleIDAuthorizer``, or Apple's own button through `fill(_:scopes:user:)` and `verify(_:of:)`), not the web
/// form. Nothing is stored here: the app's server redeems the code.
///
/// ```swift
/// let apple = AppleIDSignIn(provider: try oauth.provider("apple", variables: ["team_id": "ABCDE12345"]), authorizer: SystemAppleIDAuthorizer())
/// let result = try await apple.signIn()
/// // Send result.authorizationCode, result.identityToken, result.nonce (and a first authorization's fullName, which
/// // is not signed) to your server, which calls OAuth.redeemPlatformCode.
/// ```
public struct AppleIDSignIn: Sendable {
    /// What a sign-in established, verified.
    public struct Result: Sendable {
        /// Apple's stable identifier of the user for the team (the token's `sub`).
        public let user: String
        /// The identity token's claims, verified.
        public let idToken: IDTokenClaims
        /// The identity token itself, for the app's server.
        public let identityToken: Secret
        /// The one-time code for the app's server (valid five minutes); nil when Apple sent none.
        public let authorizationCode: Secret?
        /// The nonce whose SHA-256 was sent to Apple, for the app's server to check the identity token with.
        public let nonce: Secret
        /// The e-mail address shared, on the first authorization only (the token's `email` says it too, signed).
        public let email: String?
        /// The name shared, on the first authorization only; Apple never sends it again.
        public let fullName: PersonNameComponents?
    }

    /// The provider Apple's identity tokens are checked against (the bundled `apple` descriptor, or a host's).
    public let provider: Provider
    public let authorizer: any AppleIDAuthorizer
    /// The app's bundle identifier: the identity token's audience (`aud`), the client id Apple issues the token to.
    public let bundleIdentifier: String
    /// The transport and clock of the key set's fetch and the token's checks.
    public let environment: OAuthEnvironment

    /// - Parameters:
    ///   - provider: The provider whose keys and issuer the identity token is checked against.
    ///   - authorizer: Shows the sheet (`SystemAppleIDAuthorizer` in an app).
    ///   - bundleIdentifier: The app's bundle identifier, which the identity token's `aud` must be; `Bundle.main`'s
    ///     by default (the app's `CFBundleIdentifier`, which Xcode sets from the target's Bundle Identifier).
    ///   - environment: The transport and clock of the checks.
    public init(
        provider: Provider, authorizer: any AppleIDAuthorizer, bundleIdentifier: String? = Bundle.main.bundleIdentifier,
        environment: OAuthEnvironment = OAuthEnvironment()
    ) {
        self.provider = provider
        self.authorizer = authorizer
        self.bundleIdentifier = bundleIdentifier ?? ""
        self.environment = environment
    }

    /// Shows the sheet and verifies what it hands back.
    ///
    /// - Parameters:
    ///   - scopes: What to ask the user to share; both by default.
    ///   - user: The user identifier the app kept, to migrate a user whose ``AppleIDCredential/State`` is
    ///     ``AppleIDCredential/State/transferred`` after the app moved to another team
    ///     (`ASAuthorizationAppleIDRequest.user`); nil for a sign-in.
    /// - Throws: `FlowError` `cancelled` when the user cancelled, `FlowError` `client_authentication` without a bundle
    ///   identifier (before the sheet opens); ``UnverifiedCredential`` when the sheet answered and its answer did not
    ///   verify here (the identity token missing, not fetched keys, a device clock off, another nonce or user): it
    ///   carries the name and e-mail Apple gives once, and what the app's server can verify itself.
    public func signIn(scopes: [AppleIDCredential.Scope] = [.fullName, .email], user: String? = nil) async throws -> Result {
        try checkBundleIdentifier()
        let request = Request(scopes: scopes, user: user)
        let credential = try await authorizer.authorize(scopes: scopes, nonce: request.hashedNonce, user: user)
        return try await verify(credential, of: request)
    }

    /// Verifies what the sheet handed back for `request`: the identity token's signature with Apple's keys, `iss`,
    /// `aud` (``bundleIdentifier``), expiry, the request's nonce, and that it names the credential's user.
    ///
    /// Called again with an ``UnverifiedCredential``'s `credential` and `request` once the network is back; Apple's
    /// identity tokens expire minutes after the sheet.
    ///
    /// - Throws: ``UnverifiedCredential`` for any failure, with the credential as the sheet gave it and why.
    public func verify(_ credential: AppleIDCredential, of request: Request) async throws -> Result {
        do {
            try checkBundleIdentifier()
            guard let identityToken = credential.identityToken else {
                throw IDTokenError(.missing, "Apple returned no identity token for this sign-in")
            }
            let validator = IDTokenValidator(
                provider: provider, clientID: bundleIdentifier, transport: environment.transport, clock: environment.clock)
            let claims = try await validator.validate(identityToken, nonce: Secret(request.hashedNonce), accessToken: nil)
            guard claims.subject == credential.user else {
                throw IDTokenError(.subjectMismatch, "Apple's identity token is about another user than the credential it came with")
            }
            return Result(
                user: claims.subject, idToken: claims, identityToken: identityToken, authorizationCode: credential.authorizationCode,
                nonce: request.nonce, email: credential.email, fullName: credential.fullName)
        } catch {
            throw UnverifiedCredential(credential: credential, request: request, reason: error)
        }
    }

    /// What Apple says of `user`'s authorization of the app: check it at launch, and when the system posts
    /// `ASAuthorizationAppleIDProvider.credentialRevokedNotification` (observe it with `NotificationCenter`).
    /// ``AppleIDCredential/State/revoked`` and ``AppleIDCredential/State/notFound`` end the app's session for that user;
    /// ``AppleIDCredential/State/transferred`` migrates them (``signIn(scopes:user:)`` with `user`), never signs them out.
    ///
    /// - Throws: The system's error when it could not answer (`ASAuthorizationError`, no network to Apple's servers):
    ///   nothing is known then; keep the session and ask again later.
    public func credentialState(forUser user: String) async throws -> AppleIDCredential.State {
        try await authorizer.credentialState(forUser: user)
    }

    /// Whether `user` still authorizes the app (``credentialState(forUser:)`` is ``AppleIDCredential/State/authorized``).
    @available(*, deprecated, message: "use credentialState(forUser:): a transferred user is migrated, not signed out")
    public func isAuthorized(_ user: String) async throws -> Bool {
        try await credentialState(forUser: user) == .authorized
    }

    /// `FlowError` `client_authentication` when there is no bundle identifier to check the token's audience against.
    private func checkBundleIdentifier() throws {
        guard !bundleIdentifier.isEmpty else {
            throw FlowError(.clientAuthentication, "no bundle identifier to check Apple's identity token's audience against")
        }
    }

    /// The SHA-256 of a nonce, lowercase hex: what the request carries and the identity token's `nonce` says.
    static func hash(_ nonce: Secret) -> Secret {
        Secret(Hexadecimal.lowercase(Data(SHA256.hash(data: Data(nonce.value.utf8)))))
    }
}
