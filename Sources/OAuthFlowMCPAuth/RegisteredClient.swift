#if NIO
import Foundation
import OAuthFlow

/// A client this machine registered at an authorization server with Dynamic Client Registration (RFC 7591), kept so
/// that the next sign-in there uses it instead of registering again.
///
/// It holds the client secret when the server issued one: store it as carefully as a token.
public struct RegisteredClient: Sendable, Hashable, Codable {
    /// The authorization server's issuer.
    public var issuer: URL
    public var clientID: String
    /// The secret the server issued, if any; public clients (`token_endpoint_auth_method: none`) have none.
    public var clientSecret: Secret?
    /// When the secret expires (`client_secret_expires_at`); nil when it does not.
    public var secretExpiresAt: Date?
    /// How the client authenticates at the token endpoint, as registered.
    public var authMethod: ProviderDescriptor.ClientAuthMethod
    /// The redirect URIs registered.
    public var redirectURIs: [URL]

    public init(
        issuer: URL, clientID: String, clientSecret: Secret? = nil, secretExpiresAt: Date? = nil,
        authMethod: ProviderDescriptor.ClientAuthMethod = .none, redirectURIs: [URL]
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.secretExpiresAt = secretExpiresAt
        self.authMethod = authMethod
        self.redirectURIs = redirectURIs
    }

    /// Whether it can still be used at `now`: its secret, if it has one, has not expired.
    public func isUsable(at now: Date) -> Bool {
        secretExpiresAt.map { now < $0 } ?? true
    }

    /// The client settings a sign-in with it uses: a public client (`none`) sends no secret, even one the server issued.
    /// They are bound to ``issuer``: its secret goes to no other server.
    var settings: ClientSettings {
        var settings = ClientSettings(clientID: clientID, secret: authMethod == .none ? nil : clientSecret, authMethod: authMethod)
        settings.authorizationServer = issuer
        return settings
    }
}
#endif
