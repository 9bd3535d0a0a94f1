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

extension GrantType {
    /// Why the engine does not run the grant `name` (not one of its cases), as a sentence: RFC 9700's reason
    /// for the implicit and password grants, otherwise the grant meant where a case's URI ends with `name`
    /// (`device_code`) or is spelt close to it.
    static func refusal(of name: String) -> String {
        switch name {
        case "implicit": return "the implicit grant must not be used (RFC 9700 §2.1.2)"
        case "password": return "the resource owner password grant must not be used (RFC 9700 §2.4)"
        default: break
        }
        let names = allCases.map(\.rawValue).sorted()
        if let full = names.first(where: { $0.hasSuffix(":" + name) }) {
            return "OAuthFlow names this grant by its full URI, `\(full)`"
        }
        if let suggestion = Spelling.closest(to: name, among: names) {
            return "OAuthFlow does not run the `\(name)` grant; did you mean `\(suggestion)`?"
        }
        return "OAuthFlow runs " + allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ") + ", and does not run the `\(name)` grant"
    }
}
