import Foundation

extension Provider {
    /// Everything the engine does differently from one provider to another, typed and with every
    /// default applied: the engine reads this, never the descriptor.
    /// It composes each section's own policy value (``DPoPPolicy``, ``LogoutPolicy``, ``ScopePolicy`` and the others).
    public struct Policy: Sendable, Hashable {
        /// The grants the provider is declared to take (`grant_types`).
        public var grantTypes: [GrantType]
        /// `authorization.response_mode`; the response type is always `code` (RFC 9700 §2.1.2).
        public var responseMode: ProviderDescriptor.ResponseMode
        /// Fixed parameters added to every authorization request.
        public var authorizationParameters: [String: String]
        /// The authentication context classes every browser sign-in asks for and finds in the ID token's `acr`
        /// (`authorization.acr_values`); a client that asks its own (``ClientConfiguration/acrValues``, a step-up) narrows
        /// them, never widens them; empty asks none.
        public var acrValues: [String] = []
        /// The most seconds since the user authenticated that a browser sign-in accepts, checked against the ID token's
        /// `auth_time` (`authorization.max_age`); a client may ask a shorter one, never a longer one; nil asks none.
        public var maximumAuthenticationAge: Int? = nil
        /// Whether PKCE is sent: always with S256, unless the provider takes none.
        public var pkce: ProviderDescriptor.PKCEUse
        /// Whether a `nonce` is sent and checked in the ID token.
        public var nonce: Bool
        /// Whether an ID token must carry the nonce sent (`security.nonce_echoed`): false accepts one without it
        /// (LinkedIn's never carry it); a nonce a token carries is checked all the same.
        public var nonceEchoed = true
        /// RFC 9207 handling of the callback's `iss`.
        public var issParameter: ProviderDescriptor.IssuerParameter
        /// The algorithms an ID token may be signed with.
        public var idTokenAlgorithms: [JWSAlgorithm]
        /// The client authentication methods the provider accepts, in its order of preference.
        public var clientAuthMethods: [ProviderDescriptor.ClientAuthMethod]
        /// The `aud` and algorithms of the client's assertions (`client_secret_jwt`, `private_key_jwt`).
        public var clientAssertion: ClientAssertionPolicy
        /// How a client-credentials request names the API its token is for.
        public var serviceTokens: ServiceTokenPolicy
        /// How token requests are sent.
        public var tokenRequest: TokenRequestShape
        /// How token responses are read.
        public var tokenResponseFormat: ProviderDescriptor.TokenResponseFormat
        /// The `token_type` assumed when a token answer has none (`token_response.default_token_type`); nil refuses such an answer.
        package var defaultTokenType: String? = nil
        /// What `expires_in: 0` means (`token_response.zero_expires_in`).
        public var zeroExpiresIn: ProviderDescriptor.ZeroExpiresIn = .spent
        /// The userinfo request (and the profile's extra call): the descriptor's `userinfo` section, its variables
        /// filled in; `{client_id}` and `{token.…}` placeholders are filled when the request is made.
        package var userinfo: ProviderDescriptor.Userinfo
        /// Scopes asked for, and how to be issued a refresh token.
        public var scopes: ScopePolicy
        /// How the provider answers the device authorization grant.
        public var device: DevicePolicy
        /// When authorization requests are pushed (``Provider/pushesAuthorizationRequests`` decides, with discovery).
        public var pushedAuthorization: ProviderDescriptor.Pushed
        /// When and how tokens are bound to a key (RFC 9449).
        public var dpop: DPoPPolicy
        /// Whether token requests present the client certificate whichever way the client authenticates, for tokens bound
        /// to it (RFC 8705 §3, `security.tls_client_certificate_bound_access_tokens`).
        public var certificateBoundTokens = false
        /// How an API checks the provider's access tokens.
        public var accessTokens: AccessTokenPolicy
        /// How the provider's own session is ended, and how it says that one ended.
        public var logout: LogoutPolicy
        /// How a token is revoked: RFC 7009 unless the descriptor's `revocation` says otherwise.
        package var revocation = ProviderDescriptor.RevocationSettings()
        /// When the client secret is a JWT the client signs (`client_auth.generated_secret`), its claims.
        public var generatedSecret: GeneratedSecretPolicy?
        /// The provider takes only https web redirect URIs (`redirect.web_only`): no loopback sign-in.
        public var webRedirectOnly = false
        /// An app's redirect URIs (`redirect.private_use_scheme`, `private_use_uri`, `claimed_https`): read by
        /// ``Provider/appRedirectURI(clientID:bundleIdentifier:requested:claimedHTTPS:)``.
        package var appRedirect = AppRedirect()
        /// The signature the authorization callback carries (`authorization.callback_signature`).
        package var callbackSignature: ProviderDescriptor.Authorization.CallbackSignature?
        /// The parameter naming the client in the authorization request and in request bodies (`client_auth.client_id_parameter`).
        public var clientIDParameter = "client_id"
        /// The security profile the provider is held to (`security.profile`): FAPI 2.0 pushes every request, requires
        /// `iss`, S256 in the server's metadata and sender-constrained tokens (Docs/pushed-and-dpop.md); nil for none.
        public var securityProfile: ProviderDescriptor.SecurityProfile? = nil
        /// The `type`s of rich authorization request details the provider takes (`authorization.details_types`,
        /// RFC 9396 §2); nil when the descriptor declares none, which leaves the check to discovery's list, if any.
        public var authorizationDetailsTypes: [String]? = nil
        /// When the authorization request goes in a signed request object (`authorization.request_object`, RFC 9101).
        public var requestObject: ProviderDescriptor.RequestObject = .never
        /// The algorithms a request object may be signed with (`authorization.request_object_algs`); the client's key picks one.
        public var requestObjectAlgorithms: [JWSAlgorithm] = JWSAlgorithm.requestObject
        /// The algorithms a JWT-secured authorization response (JARM) may be signed with (`authorization.response_algs`).
        public var responseAlgorithms: [JWSAlgorithm] = [.rs256, .ps256, .es256]
        /// Where the provider's security events come from and how they are checked (`security_events`); nil when it sends none.
        package var securityEvents: SecurityEventPolicy? = nil

        /// Whether the device authorization grant is declared.
        public var supportsDeviceFlow: Bool { grantTypes.contains(.deviceCode) }
    }
}
