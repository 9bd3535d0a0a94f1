import Crypto
import Foundation
import OAuthFlow

/// Sign in with Apple in an app, natively: the system's sheet (`ASAuthorizationAppleIDProvider`, through an
/// ``AppleIDAuthorizer``), not the web form. Nothing is stored here: the app's server redeems the code.
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
    /// The app's bundle identifier: the identity token's audience.
    public let bundleIdentifier: String
    /// The transport and clock of the key set's fetch and the token's checks.
    public let environment: OAuthEnvironment

    /// - Parameters:
    ///   - provider: The provider whose keys and issuer the identity token is checked against.
    ///   - authorizer: Shows the sheet (`SystemAppleIDAuthorizer` in an app).
    ///   - bundleIdentifier: The app's bundle identifier; `Bundle.main`'s by default.
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
    /// - Parameter scopes: What to ask the user to share; both by default.
    /// - Throws: `FlowError` `cancelled` when the user cancelled, `FlowError` `client_authentication` without a bundle
    ///   identifier, `IDTokenError` for an identity token that is missing, does not verify, or names another user.
    public func signIn(scopes: [AppleIDCredential.Scope] = [.fullName, .email]) async throws -> Result {
        guard !bundleIdentifier.isEmpty else {
            throw FlowError(.clientAuthentication, "no bundle identifier to check Apple's identity token's audience against")
        }
        let nonce = Secret(Base64URL.random(bytes: 32))
        let hashed = Self.hash(nonce)
        let credential = try await authorizer.authorize(scopes: scopes, nonce: hashed.value)
        guard let identityToken = credential.identityToken else {
            throw IDTokenError(.missing, "Apple returned no identity token for this sign-in")
        }
        let validator = IDTokenValidator(
            provider: provider, clientID: bundleIdentifier, transport: environment.transport, clock: environment.clock)
        let claims = try await validator.validate(identityToken, nonce: hashed, accessToken: nil)
        guard claims.subject == credential.user else {
            throw IDTokenError(.subjectMismatch, "Apple's identity token is about another user than the credential it came with")
        }
        return Result(
            user: claims.subject, idToken: claims, identityToken: identityToken, authorizationCode: credential.authorizationCode,
            nonce: nonce, email: credential.email, fullName: credential.fullName)
    }

    /// Whether `user` still authorizes the app: check it at launch, and when the system posts
    /// `ASAuthorizationAppleIDProvider.credentialRevokedNotification` (observe it with `NotificationCenter`); anything
    /// but ``AppleIDCredential/State/authorized`` ends the app's session for that user.
    public func isAuthorized(_ user: String) async throws -> Bool {
        try await authorizer.credentialState(forUser: user) == .authorized
    }

    /// The SHA-256 of a nonce, lowercase hex: what the request carries and the identity token's `nonce` says.
    static func hash(_ nonce: Secret) -> Secret {
        Secret(Hexadecimal.lowercase(Data(SHA256.hash(data: Data(nonce.value.utf8)))))
    }
}
