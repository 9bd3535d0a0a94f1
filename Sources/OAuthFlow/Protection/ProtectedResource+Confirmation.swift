extension ProtectedResource {
    /// What an access token is bound to (its `cnf` claim).
    public struct Confirmation: Sendable, Hashable {
        /// `jkt`: the RFC 7638 thumbprint of the DPoP key (RFC 9449 §6).
        public let keyThumbprint: String?
        /// `x5t#S256`: the SHA-256 of the client certificate, base64url (RFC 8705 §3.1).
        public let certificateThumbprint: String?

        /// Reads `cnf`; nil when it binds to nothing OAuthFlow knows.
        init?(_ claim: JSONValue?) {
            guard case let .object(members)? = claim else { return nil }
            keyThumbprint = members["jkt"]?.stringValue
            certificateThumbprint = members["x5t#S256"]?.stringValue
            guard keyThumbprint != nil || certificateThumbprint != nil else { return nil }
        }

        /// Whether `cnf` is present but binds to nothing OAuthFlow can check (an unknown confirmation method).
        static func isUnknown(_ claim: JSONValue?) -> Bool {
            guard let claim else { return false }
            return ProtectedResource.Confirmation(claim) == nil
        }
    }
}
