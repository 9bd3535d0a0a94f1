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
    /// How this client authenticates at the token endpoint; nil chooses from the descriptor's
    /// `client_auth.methods`: the first secret method when there is a secret, else `none`.
    public var authMethod: ClientAuthMethod?

    public init(
        clientID: String, redirectURI: URL, clientSecret: Secret? = nil, scopes: [String]? = nil,
        requestOfflineAccess: Bool = true, authMethod: ClientAuthMethod? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.requestOfflineAccess = requestOfflineAccess
        self.authMethod = authMethod
    }

    /// The client authentication method for `provider`.
    ///
    /// A secret is never dropped silently, and a method the provider does not list is never used.
    /// - Throws: ``FlowError`` `clientAuthentication` for an impossible combination, and
    ///   `missingClientSecret` when the provider only takes confidential clients and there is no secret.
    public func authenticationMethod(for provider: Provider) throws -> ClientAuthMethod {
        let supported = provider.policy.clientAuthMethods
        let listed = supported.map(\.rawValue).joined(separator: ", ")
        if let authMethod {
            guard supported.contains(authMethod) else {
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` does not accept client authentication `\(authMethod.rawValue)` (its descriptor lists: \(listed))")
            }
            if authMethod == .none, clientSecret != nil {
                throw FlowError(.clientAuthentication, "client authentication `none` was chosen, but a client secret was given; drop one of them")
            }
            if authMethod != .none, clientSecret == nil {
                throw FlowError(.missingClientSecret, "client authentication `\(authMethod.rawValue)` needs a client secret, and none was given")
            }
            return authMethod
        }
        if clientSecret != nil {
            guard let method = supported.first(where: { $0 != .none }) else {
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` takes public clients only (client_auth: none), but a client secret was given; drop the secret, or list the secret methods the provider accepts under `client_auth.methods`"
                )
            }
            return method
        }
        guard supported.contains(.none) else {
            throw FlowError(.missingClientSecret, "provider `\(provider.id)` needs a client secret (it accepts \(listed)), and none was given")
        }
        return .none
    }
}
