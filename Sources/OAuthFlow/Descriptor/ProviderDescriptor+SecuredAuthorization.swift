import Foundation

extension ProviderDescriptor {
    /// When the authorization request's parameters go in a request object the client signs (RFC 9101).
    public enum RequestObject: String, Sendable, Hashable, Codable, CaseIterable {
        /// Never, unless discovery says `require_signed_request_object: true`.
        case never
        /// When discovery lists the client key's algorithm in `request_object_signing_alg_values_supported` and the
        /// client has a private key.
        case ifSupported = "if_supported"
        /// Always: a client without a private key the provider takes cannot sign in.
        case always
    }
}

extension ProviderDescriptor.ResponseMode {
    /// Whether the response comes as a JWT the server signed (JARM): `jwt`, `query.jwt`, `form_post.jwt`.
    public var isJWT: Bool { [.jwt, .queryJWT, .formPostJWT].contains(self) }

    /// Whether the response comes in a cross-site POST body: `form_post` or `form_post.jwt`.
    package var isFormPost: Bool { self == .formPost || self == .formPostJWT }
}
