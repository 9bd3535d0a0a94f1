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

        /// Whether every scope of `required` was granted.
        public func hasScopes(_ required: [String]) -> Bool {
            required.allSatisfy(scopes.contains)
        }

        /// The token's rich authorization details (RFC 9396 §9.1, §9.2): the JWT's `authorization_details` claim or
        /// the introspection answer's member; empty when it has none, or when they are not an array of objects with
        /// a `type` (``ProtectedResource/authenticate(_:requiring:details:)`` refuses such a token when it requires details).
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

extension ProtectedResource {
    /// A request as an API received it: what the checks of its access token read.
    public struct Request: Sendable {
        /// Every `Authorization` header of the request (a request with two is refused).
        public var authorization: [String]
        /// Every `DPoP` header of the request (RFC 9449 §4.3: exactly one with a DPoP-bound token).
        public var dpop: [String]
        /// The request's method, as sent (`GET`, `POST`, ...).
        public var method: String
        /// The URL the client addressed, as it sees it (behind a proxy, the public one); DPoP proofs name it in `htu`.
        public var url: URL?
        /// The client certificate of the TLS connection (DER), for certificate-bound tokens (RFC 8705).
        public var clientCertificate: [UInt8]?

        public init(authorization: [String], dpop: [String] = [], method: String = "GET", url: URL? = nil, clientCertificate: [UInt8]? = nil) {
            self.authorization = authorization
            self.dpop = dpop
            self.method = method
            self.url = url
            self.clientCertificate = clientCertificate
        }

        /// A request with one `Authorization` header (or none), and one `DPoP` header (or none).
        public init(authorization: String?, dpop: String? = nil, method: String = "GET", url: URL? = nil, clientCertificate: [UInt8]? = nil) {
            self.init(
                authorization: authorization.map { [$0] } ?? [], dpop: dpop.map { [$0] } ?? [], method: method, url: url,
                clientCertificate: clientCertificate)
        }
    }
}
