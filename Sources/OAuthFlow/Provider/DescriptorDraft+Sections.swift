import Foundation
import Yams

extension DescriptorDraft {
    /// The draft's sections as the document gives them, one step each, in the order the file states them; each
    /// step adds its notes, the assumptions it leaves open and the values the caller says the server takes that
    /// the document's lists leave out (recorded under `discovery.lacks`).
    struct Writing {
        let metadata: ServerMetadata
        let metadataURL: URL
        let oidc: Bool
        let options: Options
        var notes: [String] = []
        var open: [Assumption] = []
        var unlisted: [(ProviderDescriptor.Discovery.Listing, String)] = []

        init(metadata: ServerMetadata, metadataURL: URL, oidc: Bool, options: Options) {
            self.metadata = metadata
            self.metadataURL = metadataURL
            self.oidc = oidc
            self.options = options
        }

        func refuse(_ message: String) -> DiscoveryError {
            DiscoveryError(.invalidDocument, "\(metadataURL.absoluteString): \(message)")
        }

        /// Scopes: OpenID Connect's own when the server lists them (`openid` always, which OIDC servers must take).
        mutating func scopes() -> [(String, Node)] {
            var scopes: [(String, Node)] = []
            let supported = metadata.scopesSupported
            var defaults = oidc ? ["openid"] : []
            if let supported {
                defaults += DescriptorDraft.defaultScopes.filter { $0 != "openid" && supported.contains($0) }
            } else if oidc {
                notes.append(
                    "The server publishes no scopes_supported: scopes.default asks for openid alone; add profile and email if it takes them.")
            }
            if !defaults.isEmpty { scopes.append(("default", DescriptorDraft.list(defaults))) }
            // A refresh token needs the grant: RFC 8414's default list (no list) is the descriptor's, which has it.
            let refreshes = metadata.grantTypesSupported.map { $0.contains(GrantType.refreshToken.rawValue) } ?? true
            let listsOffline = supported?.contains("offline_access") == true
            let assumesOffline = oidc && refreshes && !listsOffline && options.assuming.contains(.offlineAccess)
            if oidc, refreshes, !listsOffline, !assumesOffline {
                open.append(.offlineAccess)
                notes.append(
                    "The server does not list offline_access in scopes_supported, so sign-ins do not ask for it and a refresh token comes only if the server issues one unasked; if it grants one for offline_access, write this file again with `oauthflow providers add \(DescriptorDraft.shellWord(metadata.issuer)) --offline-access --force`, adding the other flags it was written with (--id, --output, --port, --public-client)."
                )
            }
            if assumesOffline, supported != nil { unlisted.append((.scopes, "offline_access")) }
            if listsOffline || assumesOffline {
                // OpenID Connect Core §11: a client asking for offline_access sends prompt=consent, unless the
                // server's documentation says it grants refresh tokens without it.
                let params = DescriptorDraft.mapping([("prompt", DescriptorDraft.plain("consent"))])
                scopes.append(("offline", DescriptorDraft.mapping([("scopes", DescriptorDraft.list(["offline_access"])), ("params", params)])))
                notes.append(
                    "offline_access is sent with prompt=consent (OpenID Connect Core §11); if the server's documentation grants refresh tokens without it, write `without_consent_prompt: true` instead of the params."
                )
            }
            return scopes
        }

        /// Grants: those OAuthFlow uses, as the server lists them; nil for RFC 8414's default (no list), which is
        /// left to the descriptor's.
        mutating func grants() throws -> [GrantType]? {
            guard let published = metadata.grantTypesSupported else { return nil }
            var grants = GrantType.allCases.filter { published.contains($0.rawValue) }
            if grants.contains(.deviceCode), metadata.deviceAuthorizationEndpoint == nil {
                grants.removeAll { $0 == .deviceCode }
                notes.append("The server lists the device grant but no device_authorization_endpoint: the grant is left out.")
            }
            guard !grants.isEmpty else {
                throw refuse(
                    "its grant_types_supported names no grant OAuthFlow uses (authorization_code, refresh_token, the device grant, client_credentials, the JWT bearer grant, token exchange)"
                )
            }
            return grants
        }

        /// The endpoints a descriptor drawn from discovery cannot do without.
        func checkEndpoints(signsIn: Bool) throws {
            guard metadata.tokenEndpoint != nil else { throw refuse("it names no token_endpoint") }
            if signsIn, metadata.authorizationEndpoint == nil { throw refuse("it names no authorization_endpoint") }
            if oidc, metadata.jwksURI == nil { throw refuse("it names no jwks_uri, which OpenID Connect ID tokens are verified with") }
        }

        /// Client authentication, in the order a client should choose; RFC 8414 §2's default when absent.
        mutating func clientAuth(signsIn: Bool) throws -> (entries: [(String, Node)], methods: [ProviderDescriptor.ClientAuthMethod]) {
            var methods: [ProviderDescriptor.ClientAuthMethod]
            if let published = metadata.tokenEndpointAuthMethodsSupported {
                methods = DescriptorDraft.methodOrder.filter { published.contains($0.rawValue) }
                guard !methods.isEmpty else {
                    throw refuse("its token_endpoint_auth_methods_supported names no client authentication OAuthFlow has")
                }
            } else {
                methods = [.clientSecretBasic]
                notes.append(
                    "The server publishes no token_endpoint_auth_methods_supported, which means client_secret_basic alone (RFC 8414 §2); add `none` to client_auth.methods if it takes public clients."
                )
            }
            if signsIn, !methods.contains(.none) { addPublicClients(to: &methods) }
            var entries: [(String, Node)] = [("methods", DescriptorDraft.list(methods.map(\.rawValue)))]
            if methods.contains(where: \.usesAssertion), let algorithms = metadata.tokenEndpointAuthSigningAlgValuesSupported {
                let usable = DescriptorDraft.assertionAlgorithms.filter { algorithms.contains($0) }
                if usable.isEmpty {
                    methods.removeAll(where: \.usesAssertion)
                    entries = [("methods", DescriptorDraft.list(methods.map(\.rawValue)))]
                    notes.append(
                        "The server signs client assertions with no algorithm OAuthFlow has: client_secret_jwt and private_key_jwt are left out.")
                } else {
                    entries.append(("assertion_algs", DescriptorDraft.list(usable)))
                }
            }
            guard !methods.isEmpty else { throw refuse("no client authentication OAuthFlow has is left") }
            return (entries, methods)
        }

        /// `none` for a server that signs in but does not list it: added when the caller says the server takes public
        /// clients, and otherwise left open.
        private mutating func addPublicClients(to methods: inout [ProviderDescriptor.ClientAuthMethod]) {
            if options.assuming.contains(.publicClients) {
                methods.insert(.none, at: 0)
                if metadata.tokenEndpointAuthMethodsSupported != nil { unlisted.append((.tokenEndpointAuthMethods, "none")) }
            } else {
                open.append(.publicClients)
                if metadata.tokenEndpointAuthMethodsSupported != nil {
                    notes.append(
                        "`none` is not among the server's token_endpoint_auth_methods_supported: sign in with a confidential client (a secret or a key), or, if the server takes public clients all the same, write this file again with `oauthflow providers add \(DescriptorDraft.shellWord(metadata.issuer)) --public-client --force`, adding the other flags it was written with (--id, --output, --port, --offline-access)."
                    )
                }
            }
        }

        /// The checks: PKCE, RFC 9207 `iss`, the ID token and DPoP algorithms.
        mutating func security(signsIn: Bool) throws -> [(String, Node)] {
            var security: [(String, Node)] = []
            if signsIn { security.append(("pkce", try pkce())) }
            if metadata.authorizationResponseIssParameterSupported == true { security.append(("iss_parameter", DescriptorDraft.plain("required"))) }
            if oidc, let published = metadata.idTokenSigningAlgValuesSupported {
                security.append(("id_token_algs", try idTokenAlgorithms(published)))
            }
            if let published = metadata.dpopSigningAlgValuesSupported {
                let usable = DescriptorDraft.dpopAlgorithms.filter { published.contains($0) }
                if usable.isEmpty {
                    notes.append("The server takes DPoP with no key algorithm OAuthFlow has: tokens stay Bearer tokens.")
                } else {
                    security.append(("dpop", DescriptorDraft.plain("if_supported")))
                    security.append(("dpop_signing_alg_values_supported", DescriptorDraft.list(usable)))
                    notes.append("The server takes DPoP, so sessions are DPoP-bound (`dpop: if_supported`); git and kubectl cannot use bound tokens.")
                }
            }
            return security
        }

        private mutating func pkce() throws -> Node {
            switch metadata.codeChallengeMethodsSupported {
            case let published? where published.contains("S256"):
                return DescriptorDraft.plain("required")
            case let published?:
                throw refuse(
                    "its code_challenge_methods_supported lacks S256, the only PKCE method OAuthFlow sends (RFC 9700 §2.1.1); it lists \(published.count) other\(published.count == 1 ? "" : "s")"
                )
            case nil:
                notes.append("The server does not say whether it takes PKCE (no code_challenge_methods_supported): OAuthFlow sends S256 anyway.")
                return DescriptorDraft.plain("supported")
            }
        }

        private mutating func idTokenAlgorithms(_ published: [String]) throws -> Node {
            let usable = published.compactMap { name in DescriptorDraft.idTokenAlgorithms.first { $0.rawValue == name } }
            guard !usable.isEmpty else {
                throw refuse("its id_token_signing_alg_values_supported names no algorithm OAuthFlow verifies ID tokens with (RS, PS, ES or EdDSA)")
            }
            var seen: Set<JWSAlgorithm> = []
            let accepted = usable.filter { seen.insert($0).inserted }.map(\.rawValue)
            // HS256, HS384, HS512: keyed with the client's secret. A server that signs a client's ID tokens so cannot
            // for a public client (LemonLDAP::NG answers its token request with a bare server_error).
            let secretKeyed = ["HS256", "HS384", "HS512"].filter(published.contains)
            if !secretKeyed.isEmpty {
                notes.append(
                    "The server may also sign ID tokens with \(secretKeyed.joined(separator: ", ")), keyed with the client's secret, which a public client does not have: the descriptor accepts \(accepted.joined(separator: ", ")) only, so set your client's ID token signature algorithm at the server to one of them."
                )
            }
            return DescriptorDraft.list(accepted)
        }

        /// The redirect URI, with the port fixed so that it can be registered exactly: the `redirect` section when
        /// the port is fixed, and the URI to register (nil when the server takes no authorization code grant).
        mutating func redirect(signsIn: Bool) -> (entry: Node?, uri: URL?, postLogout: URL?) {
            let path = ProviderDescriptor.Loopback().path
            // `oauthflow logout --end-session` comes back to this address on the same port (OpenID Connect RP-Initiated
            // Logout §3: a post_logout_redirect_uri the client registered, compared exactly by many servers).
            let endsSessions = signsIn && oidc && metadata.endSessionEndpoint != nil
            guard signsIn, let port = options.loopbackPort else {
                let postLogout = endsSessions ? URL(string: "http://127.0.0.1\(Provider.Loopback.postLogoutPath)") : nil
                return (nil, signsIn ? URL(string: "http://127.0.0.1\(path)") : nil, postLogout)
            }
            let postLogout = endsSessions ? URL(string: "http://127.0.0.1:\(port)\(Provider.Loopback.postLogoutPath)") : nil
            notes.append(
                "Sign-ins send the redirect URI http://127.0.0.1:\(port)\(path): register it at the server. The port is fixed, as servers that compare redirect URIs exactly (port included) need; `port: ephemeral` suits a server that takes any loopback port (RFC 8252 §7.3)."
            )
            if let postLogout {
                notes.append(
                    "`oauthflow logout --end-session` sends the post-logout redirect URI \(postLogout.absoluteString): register it at the server too."
                )
            }
            let loopback = DescriptorDraft.mapping([("port", DescriptorDraft.plain(String(port)))])
            return (DescriptorDraft.mapping([("loopback", loopback)]), URL(string: "http://127.0.0.1:\(port)\(path)"), postLogout)
        }

        /// How an API checks the provider's access tokens, when the server publishes an introspection endpoint: by
        /// introspection (RFC 7662), which answers for opaque tokens and JWTs alike. The audience an API's tokens carry
        /// is the API's to state (RFC 9068 §4, RFC 7662 §2.2), never assumed: the file leaves it in a comment.
        mutating func accessTokens() -> [(String, Node)] {
            guard metadata.introspectionEndpoint != nil else { return [] }
            notes.append(
                "The server publishes an introspection endpoint, so `access_tokens` checks tokens by introspection (format: opaque); if its access tokens are JWTs (a sign-in shows it: three dot-separated parts), `format: both` verifies them with its keys and checks their own `aud` (RFC 9068 §4), which an introspection answer may leave out. An API states the audience its tokens carry, as `access_tokens.audience` or `oauthflow verify-token --audience`."
            )
            return [("format", DescriptorDraft.plain("opaque"))]
        }

        /// Logout channels the document says an OpenID Connect server has.
        func logout() -> [(String, Node)] {
            guard oidc else { return [] }
            let channels: [(String, Bool?)] = [
                ("backchannel_logout_supported", metadata.backchannelLogoutSupported),
                (
                    "backchannel_logout_session_supported",
                    metadata.backchannelLogoutSupported == true ? metadata.backchannelLogoutSessionSupported : nil
                ),
                ("frontchannel_logout_supported", metadata.frontchannelLogoutSupported),
                (
                    "frontchannel_logout_session_supported",
                    metadata.frontchannelLogoutSupported == true ? metadata.frontchannelLogoutSessionSupported : nil
                ),
            ]
            return channels.filter { $0.1 == true }.map { ($0.0, DescriptorDraft.plain("true")) }
        }

        /// The `discovery` section: the mode, and what the document leaves out (`lacks`).
        func discovery(mode: ProviderDescriptor.DiscoveryMode, lacks: [String]) -> Node {
            var discovery: [(String, Node)] = [("mode", DescriptorDraft.plain(mode.rawValue))]
            var entries = lacks.map(DescriptorDraft.plain)
            for listing in ProviderDescriptor.Discovery.Listing.allCases {
                let values = unlisted.filter { $0.0 == listing }.map(\.1)
                if !values.isEmpty { entries.append(DescriptorDraft.mapping([(listing.rawValue, DescriptorDraft.list(values))])) }
            }
            if !entries.isEmpty {
                // A mapping among the entries reads best one per line.
                let style: Node.Sequence.Style = entries.count == lacks.count ? .flow : .block
                discovery.append(("lacks", .sequence(.init(entries, .implicit, style))))
            }
            return DescriptorDraft.mapping(discovery)
        }
    }
}
