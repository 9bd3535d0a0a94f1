import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// What a simulated provider issues and requires; change it with ``SimulatedProvider/configure(_:)``.
    public struct Settings: Sendable {
        /// How access tokens look.
        public enum AccessTokenFormat: String, Sendable {
            /// Random strings, known only to the provider: an API introspects them (RFC 7662).
            case opaque
            /// JWTs signed with the provider's key, in RFC 9068's profile (`typ: at+jwt`).
            case jwt
        }

        /// How long an access token lives (`expires_in`).
        public var accessTokenLifetime: TimeInterval = 3600
        /// How long a refresh token lives, from the authorization that started its family.
        public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
        /// How long an ID token lives.
        public var idTokenLifetime: TimeInterval = 600
        /// How long an authorization code may wait for the token request (RFC 6749 §4.1.2: short).
        public var codeLifetime: TimeInterval = 60
        /// How long a pushed request's `request_uri` lives (RFC 9126 §2.2).
        public var pushedRequestLifetime: TimeInterval = 60
        /// How long a device code lives (RFC 8628 §3.2 `expires_in`).
        public var deviceCodeLifetime: TimeInterval = 600
        /// The polling interval a device authorization gives (RFC 8628 §3.2 `interval`).
        public var devicePollingInterval: TimeInterval = 5
        /// Whether user codes go out as `WDJB-MJHT` or, as some providers send them, as eight letters `WDJBMJHT`; the user
        /// may type either (RFC 8628 §6.1), and so may ``SimulatedProvider/approveDevice(userCode:subject:)``.
        public var hyphenatesUserCodes = true
        /// Opaque strings or RFC 9068 JWTs.
        public var accessTokenFormat: AccessTokenFormat = .opaque
        /// The `aud` of JWT access tokens when the request names no `resource` (RFC 8707).
        public var accessTokenAudience = "https://api.simulated.example"
        /// ES256, RS256 or EdDSA (Ed25519): what ID tokens, JWT access tokens and logout tokens are signed with.
        public var signingAlgorithm: JWSAlgorithm = .es256
        /// Whether the key set and the header of everything the provider signs name the key (`kid`). Without, a client
        /// verifies with the key of the set that fits (OpenID Connect Core §10.1), or tries each when several do; with
        /// ``SimulatedProvider/rotateKeys(retiringPrevious:)`` the set holds several.
        public var publishesKeyIDs = true
        /// Whether code and device grants get a refresh token.
        public var issuesRefreshTokens = true
        /// Whether a refresh spends its refresh token and issues a new one (RFC 9700 §4.14.2); a spent one
        /// presented again is refused and revokes the whole family.
        public var rotatesRefreshTokens = true
        /// Whether the authorization endpoint takes only pushed requests (RFC 9126 §5).
        public var requiresPushedAuthorization = false
        /// Whether the authorization endpoint takes only signed request objects (RFC 9101 §10.5,
        /// `require_signed_request_object`), verified with the client's registered public key.
        public var requiresSignedRequestObject = false
        /// How long a JWT-secured authorization response (JARM) is valid (its `exp`).
        public var responseLifetime: TimeInterval = 600
        /// Whether the token endpoint refuses a request without a DPoP proof (RFC 9449).
        public var requiresDPoP = false
        /// Whether every DPoP proof must carry the provider's current nonce (RFC 9449 §8, §9): the first proof
        /// is answered `use_dpop_nonce` with one.
        public var requiresDPoPNonce = false
        /// Whether metadata offers DPoP at all (`dpop_signing_alg_values_supported`); proofs sent anyway are checked.
        public var offersDPoP = true
        /// How far a DPoP proof's `iat` may be from the provider's clock (RFC 9449 §11.1).
        public var proofWindow: TimeInterval = 60
        /// The endpoints published again on the mutual-TLS host (``SimulatedProvider/mutualTLSBase``) as
        /// `mtls_endpoint_aliases` (RFC 8705 §5); the empty set publishes none, and every endpoint then takes the certificate.
        /// An issuer whose host is an IP address or `localhost` publishes none whatever this says.
        public var mutualTLSAliases: Set<Endpoint> = SimulatedProvider.aliasedEndpoints
        /// Whether tokens issued to a request that presents a client certificate are bound to it (`cnf.x5t#S256`, RFC 8705
        /// §3), published as `tls_client_certificate_bound_access_tokens`.
        public var bindsTokensToCertificates = true
        /// The `type`s of rich authorization request details (RFC 9396) taken, published as
        /// `authorization_details_types_supported`; nil takes any type and publishes none.
        public var authorizationDetailsTypes: [String]? = nil
        /// The authorization details granted whatever a request asked for (a server that changes them, RFC 9396 §7);
        /// nil grants those asked for. Token answers, JWT access tokens and introspection carry what is granted.
        public var grantedAuthorizationDetails: JSONValue? = nil
        /// How long before a sign-in the user last authenticated: its ID token's `auth_time`, unless the request's
        /// `max_age` is shorter, when the user authenticates again (OpenID Connect Core §3.1.2.1). Zero: every sign-in
        /// authenticates the user.
        public var userAuthenticatedAgo: TimeInterval = 0
        /// The authentication context classes the provider can satisfy: the first of a request's `acr_values` that is
        /// here becomes the ID token's `acr`.
        public var acrValuesSupported: [String] = []
        /// The ID token's `acr` when the request asks none this provider supports; nil sends none.
        public var defaultACR: String? = nil
        /// Whether `max_age` and `acr_values` are honoured; false plays a provider that ignores them, for the tests of a
        /// client's own checks of `auth_time` and `acr`.
        public var honoursStepUp = true
        /// Claims of each user, by subject, put in ID tokens (for `profile` and `email`) and userinfo.
        public var users: [String: [String: JSONValue]] = [:]
        /// Whether ID tokens carry the user's claims the scopes release (`name`, `email`, `email_verified`); false
        /// keeps them to userinfo, as OpenID Connect Core §5.4 allows a provider to.
        public var userClaimsInIDTokens = true
        /// Whether a loopback redirect URI must name the port the client registered, as many providers check it
        /// although RFC 8252 §7.3 says any port must be taken.
        public var loopbackPortsMatchExactly = false
        /// Members of the discovery document replaced by these values, or left out where the value is `.null`: a
        /// provider whose metadata says less than it takes (`token_endpoint_auth_methods_supported` without `none`,
        /// `scopes_supported` without `offline_access`). What the provider takes stays as it was.
        public var metadataOverrides: [String: JSONValue] = [:]

        public init() {}

        /// The claims of `subject`: those of ``users``, or a name and an address made from the subject.
        func claims(of subject: String) -> [String: JSONValue] {
            users[subject] ?? ["name": .string("User \(subject)"), "email": .string("\(subject)@simulated.example"), "email_verified": .bool(true)]
        }
    }

    /// The endpoints of a simulated provider, for ``SimulatedProvider/failNext(_:error:description:status:)``
    /// and ``SimulatedProvider/requestCount(_:)``.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable {
        case openIDConfiguration, authorizationServerMetadata, jwks, authorization, pushedAuthorization, token, deviceAuthorization
        case introspection, revocation, userinfo
        /// The Shared Signals transmitter's configuration (`/.well-known/ssf-configuration`), and the same document where
        /// Google publishes its own (`/.well-known/risc-configuration`).
        case ssfConfiguration, riscConfiguration
        /// Stream management (SSF 1.0): create, read and delete; a stream's status; verification.
        case streams, streamStatus, streamVerification
        /// Where a poll stream's events are fetched (RFC 8936).
        case eventPoll

        /// Its path under the issuer.
        var path: String {
            switch self {
            case .openIDConfiguration: return "/.well-known/openid-configuration"
            case .authorizationServerMetadata: return "/.well-known/oauth-authorization-server"
            case .jwks: return "/jwks"
            case .authorization: return "/authorize"
            case .pushedAuthorization: return "/par"
            case .token: return "/token"
            case .deviceAuthorization: return "/device_authorization"
            case .introspection: return "/introspect"
            case .revocation: return "/revoke"
            case .userinfo: return "/userinfo"
            case .ssfConfiguration: return "/.well-known/ssf-configuration"
            case .riscConfiguration: return "/.well-known/risc-configuration"
            case .streams: return "/ssf/streams"
            case .streamStatus: return "/ssf/status"
            case .streamVerification: return "/ssf/verify"
            case .eventPoll: return "/ssf/poll"
            }
        }

        /// The endpoint at `path` under `issuer`.
        init?(path: String, issuer: URL) {
            let base = issuer.path.hasSuffix("/") ? String(issuer.path.dropLast()) : issuer.path
            // RFC 8414 §3 and SSF 1.0: these well-known segments go between the host and the issuer's path.
            for inserted in [Self.authorizationServerMetadata, .ssfConfiguration, .riscConfiguration] where path == inserted.path + base {
                self = inserted
                return
            }
            let inserted: Set<Self> = [.authorizationServerMetadata, .ssfConfiguration, .riscConfiguration]
            guard path.hasPrefix(base), let found = Self.allCases.first(where: { base + $0.path == path && !inserted.contains($0) })
            else { return nil }
            self = found
        }
    }
}
