import Foundation

extension ProtectedResource {
    /// Who an accepted access token speaks for, and what it allows: what an API's handler reads.
    public struct Principal: Sendable, Hashable {
        /// How the token was checked.
        public enum Source: String, Sendable, Hashable {
            /// A JWT, its signature verified with the provider's JWKS.
            case jwt
            /// RFC 7662 introspection at the provider.
            case introspection
        }

        /// The trusted provider that issued the token.
        public let providerID: String
        public let issuer: String
        /// `sub`: the user, or the client itself for a service token; nil when the token names none.
        public let subject: String?
        /// `client_id` (or `azp`): the client the token was issued to.
        public let clientID: String?
        /// `scope` (a space-separated string) or `scp` (a list or a string).
        public let scopes: [String]
        public let audiences: [String]
        public let expiresAt: Date?
        public let issuedAt: Date?
        /// `jti`, when the token has one.
        public let tokenID: String?
        public let source: Source
        /// The key or certificate the token is bound to (`cnf`), already matched to the request.
        public let confirmation: ProtectedResource.Confirmation?
        /// Every claim (or introspection member), as it came.
        public let claims: [String: JSONValue]

        /// Whether the token was shown to be for this API: its `aud` named the API's audience. False only for an
        /// introspection answer without `aud`, accepted because the provider's descriptor says its answers never
        /// name one (`access_tokens.introspected_audience: may_be_absent`).
        public var isAudienceChecked: Bool { !audiences.isEmpty }

        /// The scopes the granted ones imply at the API that accepted the token
        /// (``ProtectedResource/Settings/scopeImplications``).
        var impliedScopes: Set<String> = []

        /// Whether every scope of `required` was granted, or is implied by one granted
        /// (``ProtectedResource/Settings/scopeImplications``).
        public func hasScopes(_ required: [String]) -> Bool {
            required.allSatisfy { scopes.contains($0) || impliedScopes.contains($0) }
        }

        /// The token's rich authorization details (RFC 9396 §9.1, §9.2): the JWT's `authorization_details` claim or
        /// the introspection answer's member; empty when it has none, or when they are not an array of objects with
        /// a `type` (``ProtectedResource/authenticate(_:requiring:details:stepUp:)`` refuses such a token when it requires details).
        public var authorizationDetails: [AuthorizationDetail] {
            claims["authorization_details"].flatMap { try? AuthorizationDetail.list($0, what: "the token's authorization details") } ?? []
        }

        /// The token's authorization details of one type: what a handler reads to check that they allow the request
        /// (the account, the amount).
        public func authorizationDetails(ofType type: String) -> [AuthorizationDetail] {
            authorizationDetails.filter { $0.type == type }
        }
    }
}
