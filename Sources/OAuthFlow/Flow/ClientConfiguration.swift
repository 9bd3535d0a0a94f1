import Foundation

/// What the app registered at the provider.
public struct ClientConfiguration: Sendable, Hashable {
    public var clientID: String
    /// The exact redirect URI sent in the authorization and token requests.
    public var redirectURI: URL
    /// The client secret, for confidential clients (or Google's non-confidential desktop secret).
    public var clientSecret: Secret?
    /// Scopes to request; nil means the descriptor's defaults.
    public var scopes: [String]?
    /// Whether to add the descriptor's `offline` scopes and parameters to obtain a refresh token.
    public var requestOfflineAccess: Bool

    public init(clientID: String, redirectURI: URL, clientSecret: Secret? = nil, scopes: [String]? = nil,
                requestOfflineAccess: Bool = true) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.requestOfflineAccess = requestOfflineAccess
    }
}
