import Foundation
import OAuthFlow

/// What the system's Sign in with Apple sheet hands an app (`ASAuthorizationAppleIDCredential`), unverified: what
/// ``AppleIDSignIn`` checks before anything of it is believed.
public struct AppleIDCredential: Sendable {
    /// What an app may ask the user to share (`ASAuthorization.Scope`).
    public enum Scope: Sendable, Hashable, CaseIterable {
        case fullName
        case email
    }

    /// What Apple says of a user's authorization of the app (`ASAuthorizationAppleIDProvider.CredentialState`).
    public enum State: Sendable, Hashable {
        /// The user still authorizes the app.
        case authorized
        /// The user stopped using Sign in with Apple with the app, or deleted their Apple Account's link to it.
        case revoked
        /// Apple knows no such user for the app.
        case notFound
        /// The app moved to another team; the user must be migrated (their identifier changes): sign them in with
        /// ``AppleIDSignIn/signIn(scopes:user:)`` naming the identifier kept, never sign them out.
        case transferred
        /// A state this library does not know (one a later SDK adds), with its raw value: nothing is known of the
        /// user; keep the session and ask again later.
        case unknown(Int)
    }

    /// Apple's stable identifier of the user for the team (`sub`).
    public var user: String
    /// The identity token, a JWT Apple signs: nil when Apple did not send one.
    public var identityToken: Secret?
    /// A one-time code, valid for five minutes, that the app's server redeems for tokens.
    public var authorizationCode: Secret?
    /// The e-mail address the user shared (maybe a private relay address): on the first authorization only.
    public var email: String?
    /// The name the user shared: on the first authorization only.
    public var fullName: PersonNameComponents?

    public init(
        user: String, identityToken: Secret?, authorizationCode: Secret?, email: String? = nil, fullName: PersonNameComponents? = nil
    ) {
        self.user = user
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.email = email
        self.fullName = fullName
    }
}

extension AppleIDCredential {
    /// The credential from the sheet's parts (`ASAuthorizationAppleIDCredential`): its identity token and code are
    /// UTF-8 text; bytes that are not are no token.
    init(user: String, identityToken: Data?, authorizationCode: Data?, email: String?, fullName: PersonNameComponents?) {
        func text(_ data: Data?) -> Secret? {
            data.flatMap { String(data: $0, encoding: .utf8) }.flatMap { $0.isEmpty ? nil : Secret($0) }
        }
        self.init(user: user, identityToken: text(identityToken), authorizationCode: text(authorizationCode), email: email, fullName: fullName)
    }

    /// What the sheet's error means: the user's cancel (`ASAuthorizationError.canceled` of the authorization error
    /// domain, given by the glue) is `FlowError` `cancelled`; any other error is passed on as the system said it.
    static func failure(_ error: any Error, domain: String, cancelled: Int) -> any Error {
        let reported = error as NSError
        guard reported.domain == domain, reported.code == cancelled else { return error }
        return FlowError.cancelled("the user cancelled Sign in with Apple")
    }
}
