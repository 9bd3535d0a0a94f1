/// A grant the engine runs (RFC 6749 §4.1 and §6, RFC 8628).
public enum GrantType: String, Sendable, Hashable, CaseIterable {
    case authorizationCode = "authorization_code"
    case refreshToken = "refresh_token"
    case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    /// RFC 6749 §4.4: a client's own token.
    case clientCredentials = "client_credentials"
    /// RFC 7523 §2.1: a JWT exchanged for an access token.
    case jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// RFC 8693: one token exchanged for another.
    case tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"

    /// The name `providers show` prints.
    public var shortName: String {
        switch self {
        case .deviceCode: return "device_code"
        case .jwtBearer: return "jwt-bearer"
        case .tokenExchange: return "token-exchange"
        default: return rawValue
        }
    }
}
