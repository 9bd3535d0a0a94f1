import Foundation

extension Provider {
    /// Everything the engine does differently from one provider to another, typed and with every
    /// default applied: the engine reads this, never the descriptor.
    public struct Policy: Sendable, Hashable {
        /// The grants the provider is declared to take (`grant_types`).
        public var grantTypes: [GrantType]
        /// `authorization.response_mode`; the response type is always `code` (RFC 9700 §2.1.2).
        public var responseMode: ProviderDescriptor.ResponseMode
        /// Fixed parameters added to every authorization request.
        public var authorizationParameters: [String: String]
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

        /// The claims of a client secret the engine signs (Sign in with Apple), variables filled in.
        public struct GeneratedSecretPolicy: Sendable, Hashable {
            public var issuer: String
            public var audience: String
            public var lifetime: TimeInterval
        }

        /// How the provider's session is ended (the descriptor's `logout`), every default applied.
        public struct LogoutPolicy: Sendable, Hashable {
            public var style: ProviderDescriptor.LogoutStyle
            /// The parameter naming the post-logout redirect URI.
            public var redirectParameter: String
            /// The parameter carrying the client id; nil when none is sent.
            public var clientIDParameter: String?
            /// Whether the session's ID token is sent as `id_token_hint`.
            public var sendsIDTokenHint: Bool
            /// Whether the provider returns `state`, so that a return must carry the one sent.
            public var returnsState: Bool
            /// Fixed parameters of the end-session request.
            public var parameters: [String: String]
            /// Back-Channel Logout 1.0 as the descriptor declares it.
            public var backChannel: LogoutChannel
            /// Front-Channel Logout 1.0 as the descriptor declares it.
            public var frontChannel: LogoutChannel
            /// The oldest a logout token may be.
            public var logoutTokenMaxAge: TimeInterval
        }

        /// Whether a logout channel is declared, and whether it names sessions (`sid`).
        public struct LogoutChannel: Sendable, Hashable {
            public var supported: Bool
            public var sessionSupported: Bool
        }

        /// How an API checks the provider's access tokens (the descriptor's `access_tokens`).
        public struct AccessTokenPolicy: Sendable, Hashable {
            public var format: ProviderDescriptor.AccessTokenFormat
            public var profile: ProviderDescriptor.AccessTokenProfile
            /// The algorithms a JWT access token may be signed with: never `none`, never HMAC.
            public var algorithms: [JWSAlgorithm]
            /// The audience the descriptor states, variables filled in; nil when the API states its own.
            public var audience: String?
            /// The clock skew allowed on `exp`, `nbf` and `iat`.
            public var leeway: TimeInterval
            /// The longest an active introspection answer is reused.
            package var introspectionCache: TimeInterval
            /// How long an inactive introspection answer is reused.
            package var inactiveCache: TimeInterval
            /// Whether an introspection answer must name the API in `aud` (`access_tokens.introspected_audience`).
            package var introspectedAudience: ProviderDescriptor.AccessTokenSettings.IntrospectedAudience = .required
        }

        /// DPoP: when it is used, the key algorithms in the client's order, and what a Bearer answer means.
        public struct DPoPPolicy: Sendable, Hashable {
            public var use: ProviderDescriptor.DPoPMode
            public var algorithms: [JWSAlgorithm]
            public var bearerAnswer: ProviderDescriptor.BearerAnswer
        }

        /// Whether the device authorization grant is declared.
        public var supportsDeviceFlow: Bool { grantTypes.contains(.deviceCode) }

        /// The `aud` a client assertion carries, and the algorithms the provider takes for it.
        public struct ClientAssertionPolicy: Sendable, Hashable {
            public var audience: ProviderDescriptor.AssertionAudience
            public var algorithms: [JWSAlgorithm]
        }

        /// How a client-credentials request names its API (``ProviderDescriptor/ServiceTokenTarget``), and the scope suffix for `scope`.
        public struct ServiceTokenPolicy: Sendable, Hashable {
            public var target: ProviderDescriptor.ServiceTokenTarget
            public var scopeSuffix: String
        }

        /// How token requests are sent: the body's encoding and extra headers.
        public struct TokenRequestShape: Sendable, Hashable {
            public var encoding: ProviderDescriptor.BodyEncoding
            public var headers: [String: String]
            /// Fixed parameters added to every token request (`token_request.extra_params`).
            public var parameters: [String: String] = [:]
            /// Callback parameters copied into the code exchange (`token_request.callback_params`).
            public var callbackParameters: [String] = []
            /// Callback parameters kept with the session and sent on every refresh (`token_request.callback_params_on_refresh`).
            package var refreshCallbackParameters: [String] = []
        }

        /// The scopes a sign-in asks for by default, their separator, and what asks for a refresh token.
        public struct ScopePolicy: Sendable, Hashable {
            public var defaults: [String]
            public var separator: String
            public var offlineScopes: [String]
            public var offlineParameters: [String: String]
            /// When requests carry the scope parameter (`scopes.parameter`).
            public var parameter: ProviderDescriptor.ScopeParameter = .whenListed
            /// What stands between the granted scopes in a token answer's `scope` when the provider answers otherwise
            /// than it is asked (`token_response.scope_separator`); nil for ``separator``.
            package var answerSeparator: String? = nil

            /// What a token answer's `scope` is split on, besides spaces: the descriptor's `token_response.scope_separator`, else ``separator``.
            public var grantedSeparator: String { answerSeparator ?? separator }

            /// `scopes` joined with the provider's separator.
            public func joined(_ scopes: [String]) -> String { scopes.joined(separator: separator) }

            /// The scope parameter of a request asking for `scopes`, as `scopes.parameter` says: none, or one named `name`.
            public func parameters(for scopes: [String], named name: String = "scope") -> [(String, String)] {
                switch parameter {
                case .never: []
                case .whenListed where scopes.isEmpty: []
                case .whenListed, .always: [(name, joined(scopes))]
                }
            }
        }

        /// RFC 8628: the polling interval when the server states none, and other names for `verification_uri`.
        public struct DevicePolicy: Sendable, Hashable {
            public var interval: Int
            package var verificationURIAliases: [String]
            /// The name the device authorization request gives its scopes (`device.scope_parameter`).
            package var scopeParameter = "scope"
            /// Fixed parameters of the device authorization request (`device.extra_params`).
            public var parameters: [String: String] = [:]
            /// The `grant_type` of a poll (`device.grant_type`).
            package var grantType = GrantType.deviceCode.rawValue
            /// What a poll sends besides `grant_type` and client authentication (`device.poll_params`).
            package var pollParameters: [String: ProviderDescriptor.Device.PollSource] = ["device_code": .deviceCode]

            public init(interval: Int, verificationURIAliases: [String]) {
                self.interval = interval
                self.verificationURIAliases = verificationURIAliases
            }
        }
    }
}

extension Provider.Policy {
    /// How the userinfo request differs from a GET with `Authorization: Bearer`, in one line (`oauthflow providers show`
    /// prints it); nil when it does not.
    public var userinfoRequestSummary: String? {
        guard userinfo != ProviderDescriptor.Userinfo() else { return nil }
        var parts = [userinfo.method.rawValue]
        switch userinfo.placement {
        case .header: parts.append(userinfo.scheme.isEmpty ? "the token alone in Authorization" : "Authorization: \(userinfo.scheme) <token>")
        case .query: parts.append("the token in the query as `\(userinfo.tokenParameter)`")
        case .body: parts.append("the token in a form body as `\(userinfo.tokenParameter)`")
        }
        func listed(_ values: [String: String]) -> String {
            values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        if !userinfo.headers.isEmpty { parts.append("headers \(listed(userinfo.headers))") }
        if !userinfo.query.isEmpty { parts.append("query \(listed(userinfo.query))") }
        if !userinfo.form.isEmpty { parts.append("form \(listed(userinfo.form))") }
        if let body = userinfo.body { parts.append("body \(body)" + (userinfo.contentType.map { " (\($0))" } ?? "")) }
        return parts.joined(separator: ", ")
    }
}
