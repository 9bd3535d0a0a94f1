import Foundation

/// What the app registered at the provider.
public struct ClientConfiguration: Sendable, Hashable {
    public var clientID: String
    /// The exact redirect URI sent in the authorization and token requests; nil for a client that sends the
    /// browser nowhere (a service with its own credentials, a device sign-in), which cannot start an
    /// authorization (``FlowError`` `invalidRedirectURI`).
    public var redirectURI: URL?
    /// The client secret, for confidential clients (or Google's non-confidential desktop secret).
    public var clientSecret: Secret?
    /// Scopes to request; nil means the descriptor's defaults.
    public var scopes: [String]?
    /// Whether to add the descriptor's `offline` scopes and parameters to obtain a refresh token.
    public var requestOfflineAccess: Bool
    /// How this client authenticates at the token endpoint; nil chooses from the descriptor's
    /// `client_auth.methods`: the first listed whose credential this client holds, else `none`.
    public var authMethod: ProviderDescriptor.ClientAuthMethod?
    /// The private key for `private_key_jwt` (never from a descriptor).
    public var signingKey: ClientConfiguration.SigningKey?
    /// The client certificate for `tls_client_auth` and `self_signed_tls_client_auth` (RFC 8705).
    public var tlsIdentity: TLSClientIdentity?
    /// Rich authorization request details (RFC 9396) every authorization request of this client carries, JSON-encoded
    /// as `authorization_details` (pushed, when the provider takes pushed requests); empty sends none.
    public var authorizationDetails: [AuthorizationDetail] = []
    /// What every authorization request of this client asks of its grant (FAPI Grant Management §5.2): a new one, or
    /// rights merged into or replacing those of a grant it holds; nil asks nothing, unless the server requires an
    /// action (`grant_management_action_required`), when `create` is sent.
    public var grantManagement: ManagedGrant.Action? = nil
    /// The protected resources (RFC 8707 resource indicators) this client's tokens are for, each sent as `resource` in
    /// every authorization request, code exchange and refresh (an MCP server's canonical URI); empty sends none.
    public var resources: [URL] = []
    /// The issuer of the authorization server this client's credentials (its secret, its key, its certificate, and an
    /// assertion it presents) were given for, by the host or the user; nil leaves them to the provider the host pairs
    /// them with. When set, nothing is sent to a provider whose `issuer` is not this one exactly: ``OAuthClient`` refuses
    /// with ``FlowError`` `wrong_authorization_server` before the request leaves.
    public var authorizationServer: URL? = nil
    /// How recent the user's authentication must be, in seconds (OpenID Connect `max_age`, RFC 9470 step-up): the
    /// provider asks the user to sign in again when it was longer ago, and the ID token's `auth_time` must show it.
    /// Nil asks nothing. Checked only in an OpenID Connect sign-in, the one that returns an ID token.
    public var maximumAuthenticationAge: Int? = nil
    /// The authentication context classes asked for, preferred first (OpenID Connect `acr_values`, RFC 9470
    /// step-up, such as a phishing-resistant factor): the ID token's `acr` must be one of them. Empty asks none. Where
    /// the descriptor asks classes of every sign-in (`authorization.acr_values`), those of these it lists are asked,
    /// and a sign-in naming none of them is refused (``FlowError`` `step_up`): a client cannot lower what the
    /// descriptor requires.
    public var acrValues: [String] = []

    public init(
        clientID: String, redirectURI: URL?, clientSecret: Secret? = nil, scopes: [String]? = nil,
        requestOfflineAccess: Bool = true, authMethod: ProviderDescriptor.ClientAuthMethod? = nil, signingKey: ClientConfiguration.SigningKey? = nil,
        tlsIdentity: TLSClientIdentity? = nil, authorizationDetails: [AuthorizationDetail] = []
    ) {
        self.authorizationDetails = authorizationDetails
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.requestOfflineAccess = requestOfflineAccess
        self.authMethod = authMethod
        self.signingKey = signingKey
        self.tlsIdentity = tlsIdentity
    }

    /// A client that signs no one in: a service with its own credentials (client credentials, JWT bearer,
    /// token exchange): it has no redirect URI.
    public static func service(
        clientID: String, clientSecret: Secret? = nil, authMethod: ProviderDescriptor.ClientAuthMethod? = nil,
        signingKey: ClientConfiguration.SigningKey? = nil,
        tlsIdentity: TLSClientIdentity? = nil
    ) -> ClientConfiguration {
        ClientConfiguration(
            clientID: clientID, redirectURI: nil, clientSecret: clientSecret, requestOfflineAccess: false,
            authMethod: authMethod, signingKey: signingKey, tlsIdentity: tlsIdentity)
    }

    /// The `resource` parameters of ``resources`` (RFC 8707 §2).
    ///
    /// - Throws: ``FlowError`` `invalidResource` for a resource that is not an absolute URI or has a fragment.
    func resourceParameters() throws -> [(String, String)] {
        try resources.map { resource in
            guard resource.scheme != nil, resource.fragment == nil, !resource.absoluteString.contains("#") else {
                throw FlowError(
                    .invalidResource,
                    "the resource `\(TerminalText.escaped(String(resource.absoluteString.prefix(200))))` is not an absolute URI without a fragment (RFC 8707 §2)"
                )
            }
            return ("resource", resource.absoluteString)
        }
    }

    /// Whether this client holds the credential `method` needs.
    /// - Parameter generatesSecret: Whether the provider's client secret is a JWT signed with the client's key
    ///   (``Provider/Policy/generatedSecret``): then the key is the credential of the secret methods.
    func hasCredential(for method: ProviderDescriptor.ClientAuthMethod, generatesSecret: Bool = false) -> Bool {
        switch method {
        case .none: return clientSecret == nil && signingKey == nil && tlsIdentity == nil
        // A generated secret names its key (`kid`): the provider finds the key to check it with by that Key ID.
        case .clientSecretBasic, .clientSecretPost: return clientSecret != nil || (generatesSecret && signingKey?.keyID != nil)
        case .clientSecretJWT: return clientSecret != nil
        case .privateKeyJWT: return signingKey != nil
        case .tlsClientAuth, .selfSignedTLSClientAuth: return tlsIdentity != nil
        }
    }

    /// What `method` needs, in words, for an error.
    static func credentialNeeded(by method: ProviderDescriptor.ClientAuthMethod, generatesSecret: Bool = false) -> String {
        switch method {
        case .none: return "no credential"
        case .clientSecretBasic where generatesSecret, .clientSecretPost where generatesSecret:
            return
                "a private key with its Key ID (the client secret is a JWT signed with it, naming it: `client_auth.generated_secret`; in clients.yaml `private_key_file` and `key_id`)"
        case .clientSecretBasic, .clientSecretPost, .clientSecretJWT: return "a client secret"
        case .privateKeyJWT: return "a private key"
        case .tlsClientAuth, .selfSignedTLSClientAuth: return "a client certificate and its key"
        }
    }

    /// Which credential requests to `provider` would be made with: the method, and a digest of the key or
    /// certificate it uses (never of a secret); empty when no method can be chosen.
    func credentialIdentity(for provider: Provider) -> String {
        guard let method = try? authenticationMethod(for: provider) else { return "" }
        switch method {
        case .privateKeyJWT: return method.rawValue + ":" + (signingKey?.identity ?? "")
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            return method.rawValue + ":" + (tlsIdentity.flatMap { TLSClientIdentity.thumbprint(ofPEM: $0.certificateChainPEM) } ?? "")
        default: return method.rawValue
        }
    }

    /// The client authentication method for `provider`.
    ///
    /// A credential is never dropped silently, and a method the provider does not list is never used. Without
    /// ``authMethod``, the first method the provider lists whose credential this client holds is chosen.
    /// - Throws: ``FlowError`` `clientAuthentication` for an impossible combination, and
    ///   `missingClientSecret` when the chosen method needs a credential the client lacks.
    public func authenticationMethod(for provider: Provider) throws -> ProviderDescriptor.ClientAuthMethod {
        let supported = provider.policy.clientAuthMethods
        let generates = provider.policy.generatedSecret != nil
        let listed = supported.map(\.rawValue).joined(separator: ", ")
        if let authMethod {
            guard supported.contains(authMethod) else {
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` does not accept client authentication `\(authMethod.rawValue)` (its descriptor lists: \(listed))")
            }
            if authMethod == .none, clientSecret != nil {
                throw FlowError(.clientAuthentication, "client authentication `none` was chosen, but a client secret was given; drop one of them")
            }
            guard authMethod == .none || hasCredential(for: authMethod, generatesSecret: generates) else {
                throw FlowError(
                    .missingClientSecret,
                    "client authentication `\(authMethod.rawValue)` needs \(Self.credentialNeeded(by: authMethod, generatesSecret: generates)), and none was given"
                )
            }
            return authMethod
        }
        if let method = supported.first(where: { $0 != .none && hasCredential(for: $0, generatesSecret: generates) }) { return method }
        if generates, clientSecret == nil, let signingKey, signingKey.keyID == nil {
            throw FlowError(
                .missingClientSecret,
                "provider `\(provider.id)` signs its client secret with your key (`client_auth.generated_secret`), and the secret must name the key's Key ID: give `key_id` with the key (ClientConfiguration.SigningKey(pem:keyID:))"
            )
        }
        let given = [
            clientSecret.map { _ in "a client secret" }, signingKey.map { _ in "a private key" }, tlsIdentity.map { _ in "a client certificate" },
        ].compactMap { $0 }
        if !given.isEmpty {
            guard supported.contains(where: { $0 != .none }) else {
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` takes public clients only (client_auth: none), but \(given.joined(separator: " and ")) was given; drop it, or list the methods the provider accepts under `client_auth.methods`"
                )
            }
            throw FlowError(
                .clientAuthentication,
                "provider `\(provider.id)` accepts \(listed), and none of them uses \(given.joined(separator: " or ")), which is what was given")
        }
        guard supported.contains(.none) else {
            let needs = Set(supported.map { Self.credentialNeeded(by: $0, generatesSecret: generates) }).sorted().joined(separator: " or ")
            throw FlowError(.missingClientSecret, "provider `\(provider.id)` needs \(needs) (it accepts \(listed)), and none was given")
        }
        return .none
    }

    /// The authentication context classes that meet both `asked` and `required` (each a list of which any one will do):
    /// `asked` in its order, narrowed to `required`, so that what is asked can only add to what is required; either list
    /// alone when the other is empty.
    ///
    /// - Returns: Nil when both name classes and none is in both: no authentication could meet the two.
    public static func authenticationClasses(_ asked: [String], within required: [String]) -> [String]? {
        guard !asked.isEmpty, !required.isEmpty else { return asked.isEmpty ? required : asked }
        let both = asked.filter(required.contains)
        return both.isEmpty ? nil : both
    }
}
