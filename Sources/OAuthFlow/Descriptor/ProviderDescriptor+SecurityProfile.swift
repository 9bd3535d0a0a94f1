extension ProviderDescriptor {
    /// A published security profile the provider is held to (`security.profile`): the resolver refuses a descriptor
    /// that contradicts it, and the engine refuses what only the server reveals (its metadata, its token answers).
    ///
    /// A profile adds requirements, never relaxes one. Later profiles that build on FAPI 2.0 (message signing) answer
    /// true to `includesFAPI2Security`.
    public enum SecurityProfile: String, Sendable, Hashable, Codable, CaseIterable {
        /// FAPI 2.0 Security Profile (Final), the client's side: pushed authorization requests, PKCE S256, RFC 9207
        /// `iss`, `private_key_jwt` or mutual-TLS client authentication, sender-constrained tokens (DPoP or mTLS), PS256,
        /// ES256 or EdDSA signatures, and endpoints only from the metadata of the issuer named.
        case fapi2
        /// FAPI 2.0 Message Signing (Final): the Security Profile, with every authorization request a signed request
        /// object (RFC 9101, `authorization.request_object: always`) and every authorization response a JWT-secured one
        /// (JARM, `authorization.response_mode: jwt`, `query.jwt` or `form_post.jwt`).
        case fapi2MessageSigning = "fapi2_message_signing"

        /// The profile's name, as a sentence names it.
        public var title: String {
            switch self {
            case .fapi2: "FAPI 2.0 Security Profile"
            case .fapi2MessageSigning: "FAPI 2.0 Message Signing"
            }
        }

        /// Whether the profile holds the client to FAPI 2.0 Security Profile's requirements (every FAPI 2.0 profile does).
        public var includesFAPI2Security: Bool {
            switch self {
            case .fapi2, .fapi2MessageSigning: true
            }
        }

        /// Whether authorization requests and responses are signed (FAPI 2.0 Message Signing).
        package var signsMessages: Bool { self == .fapi2MessageSigning }

        /// The signature algorithms FAPI 2.0 allows (its section on cryptography): PS256, ES256 and EdDSA with Ed25519.
        public static let fapi2Algorithms: [JWSAlgorithm] = [.ps256, .es256, .eddsa]

        /// The client authentication methods FAPI 2.0 allows: `private_key_jwt` and mutual TLS (RFC 8705).
        package static let fapi2ClientAuthentication: [ProviderDescriptor.ClientAuthMethod] = [
            .privateKeyJWT, .tlsClientAuth, .selfSignedTLSClientAuth,
        ]

        /// The longest `nonce` a FAPI 2.0 client sends; the engine's nonces are 43 characters.
        package static let fapi2MaximumNonceLength = 64
    }
}
