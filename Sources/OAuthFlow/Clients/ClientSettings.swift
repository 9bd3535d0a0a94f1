import Foundation

/// Which client signs in to a provider: its id, secret, authentication method, variables and scopes,
/// each taken from the first place that has it (see ``ClientSettingsResolver``).
///
/// ``secretSource`` says where the secret came from and ``notes`` what was found but left out, for the
/// host to tell the user; neither ever holds the secret.
public struct ClientSettings: Sendable {
    /// What the host names itself (from its own flags or configuration), ahead of the environment and the clients file.
    public struct Overrides: Sendable, Hashable {
        public var clientID: String?
        /// The environment variable holding the client secret (never the secret itself).
        public var secretVariable: String?
        public var authMethod: ProviderDescriptor.ClientAuthMethod?
        /// Provider variables; each replaces the clients file's value of the same name.
        public var variables: [String: String]
        /// Scopes instead of the clients file's (and the descriptor's defaults); nil or empty keeps them.
        public var scopes: [String]?

        public init(
            clientID: String? = nil, secretVariable: String? = nil, authMethod: ProviderDescriptor.ClientAuthMethod? = nil,
            variables: [String: String] = [:], scopes: [String]? = nil
        ) {
            self.clientID = clientID
            self.secretVariable = secretVariable
            self.authMethod = authMethod
            self.variables = variables
            self.scopes = scopes
        }
    }

    /// Where a client secret came from, in words a person can check (never the secret).
    public enum SecretSource: Sendable, Hashable, CustomStringConvertible {
        /// The variable the host named (``Overrides/secretVariable``).
        case namedVariable(String)
        /// `OAUTHFLOW_<PROVIDER>_CLIENT_SECRET`.
        case providerVariable(String)
        /// The variable named by `client_secret_env` under the provider in the clients file.
        case clientsFileVariable(String, provider: String, clientsFile: String)
        /// The file named by `client_secret_file` under the provider in the clients file.
        case clientsFileSecretFile(String, provider: String, clientsFile: String)

        public var description: String {
            switch self {
            case let .namedVariable(variable), let .providerVariable(variable):
                return "$\(variable)"
            case let .clientsFileVariable(variable, provider, file):
                return "$\(variable), named by client_secret_env under `\(provider):` in \(file)"
            case let .clientsFileSecretFile(path, provider, file):
                return "\(path), named by client_secret_file under `\(provider):` in \(file)"
            }
        }
    }

    public var clientID: String
    public var secret: Secret?
    /// The method asked for; nil lets the provider's descriptor choose (see ``ClientConfiguration/authenticationMethod(for:)``).
    public var authMethod: ProviderDescriptor.ClientAuthMethod?
    public var variables: [String: String]
    /// Scopes to ask for; nil means the descriptor's defaults.
    public var scopes: [String]?
    /// Where ``secret`` came from; nil without a secret.
    public var secretSource: SecretSource?
    /// The private key for `private_key_jwt` (`private_key_file` or `private_key_env`).
    public var signingKey: ClientConfiguration.SigningKey?
    /// The client certificate and key for mutual TLS (`certificate_file` with `private_key_file`).
    public var tlsIdentity: TLSClientIdentity?
    /// Where the private key came from, in words (never the key).
    public var keySource: String?
    /// Settings found but not used (another client's secret, a secret under `client_auth: none`), one sentence each.
    public var notes: [String]
    /// Rich authorization request details (RFC 9396) a sign-in with these settings asks for; empty asks for none.
    public var authorizationDetails: [AuthorizationDetail] = []
    /// What a sign-in with these settings asks of its grant (FAPI Grant Management); nil asks nothing.
    public var grantManagement: ManagedGrant.Action? = nil
    /// The protected resources (RFC 8707) a sign-in with these settings asks tokens for; empty names none.
    public var resources: [URL] = []
    /// How recent the user's authentication must be at a sign-in with these settings
    /// (``ClientConfiguration/maximumAuthenticationAge``).
    public var maximumAuthenticationAge: Int? = nil
    /// The authentication context classes a sign-in with these settings asks for (``ClientConfiguration/acrValues``).
    public var acrValues: [String] = []
    /// The workload's platform-issued JWT, for the JWT bearer grant with no user (RFC 7523 §2.1): a file read afresh each
    /// time, or the host's callback. Nil for a client that signs users in. An MCP authorization given these settings for
    /// an authorization server presents it there instead of signing a user in.
    public var assertion: AssertionSource? = nil
    /// The issuer of the authorization server these settings were given for (a clients file entry's `issuer`, a command
    /// line's `--issuer`, the key of `MCPAuthorization.Configuration.clients`): the secret, the key, the certificate and
    /// the ``assertion`` go to that server only, compared exactly (see ``ClientConfiguration/authorizationServer``). Nil
    /// leaves them to the provider the host pairs them with, as a descriptor named by the host is.
    public var authorizationServer: URL? = nil

    /// - Parameters:
    ///   - clientID: The client id registered at the provider.
    ///   - secret: The client secret, for a confidential client.
    ///   - authMethod: How the client authenticates; nil lets the descriptor choose.
    ///   - variables: The descriptor's variables (an Auth0 domain, a Keycloak realm).
    ///   - scopes: Scopes to ask for; nil for the descriptor's defaults.
    ///   - signingKey: The private key for `private_key_jwt`, or the key a generated client secret is signed with.
    ///   - tlsIdentity: The client certificate for mutual TLS (RFC 8705).
    ///   - secretSource: Where `secret` came from, in words a person can check; nil without a secret.
    ///   - notes: Settings found but not used, one sentence each.
    public init(
        clientID: String, secret: Secret? = nil, authMethod: ProviderDescriptor.ClientAuthMethod? = nil, variables: [String: String] = [:],
        scopes: [String]? = nil, signingKey: ClientConfiguration.SigningKey? = nil, tlsIdentity: TLSClientIdentity? = nil,
        secretSource: SecretSource? = nil, notes: [String] = []
    ) {
        self.clientID = clientID
        self.secret = secret
        self.authMethod = authMethod
        self.variables = variables
        self.scopes = scopes
        self.signingKey = signingKey
        self.tlsIdentity = tlsIdentity
        self.secretSource = secretSource
        self.notes = notes
    }

    /// The configuration of a client with these settings.
    ///
    /// - Parameters:
    ///   - redirectURI: The redirect URI this client sends (a loopback receiver's, or a stored session's); nil for a device or service client.
    ///   - requestOfflineAccess: Whether to ask for a refresh token.
    public func configuration(redirectURI: URL?, requestOfflineAccess: Bool = true) -> ClientConfiguration {
        var configuration = ClientConfiguration(
            clientID: clientID, redirectURI: redirectURI, clientSecret: secret, scopes: scopes,
            requestOfflineAccess: requestOfflineAccess, authMethod: authMethod, signingKey: signingKey, tlsIdentity: tlsIdentity,
            authorizationDetails: authorizationDetails)
        configuration.grantManagement = grantManagement
        configuration.resources = resources
        configuration.authorizationServer = authorizationServer
        configuration.maximumAuthenticationAge = maximumAuthenticationAge
        configuration.acrValues = acrValues
        return configuration
    }

    /// These settings with `given` provider variables over their own.
    ///
    /// A credential (secret, key, certificate, assertion) goes to the server its settings' own variables name: when a
    /// given value changes one of them (another tenant's `domain`) and no ``authorizationServer`` names the server, the
    /// credentials are left out, with a note saying why, as another client's are. A variable the settings leave out is
    /// not theirs to hold; ``authorizationServer`` binds them whatever the variables; a secret named with the given
    /// variables themselves (``SecretSource/namedVariable(_:)``, a command line's) comes with them.
    package func overriding(variables given: [String: String], provider: String) -> ClientSettings {
        var settings = self
        settings.variables = variables.merging(given) { _, given in given }
        let changed = given.filter { name, value in variables[name].map { $0 != value } ?? false }.keys.sorted()
        let holdsCredential = secret != nil || signingKey != nil || tlsIdentity != nil || assertion != nil
        if case .namedVariable = secretSource { return settings }
        guard let name = changed.first, holdsCredential, authorizationServer == nil else { return settings }
        settings.secret = nil
        settings.secretSource = nil
        settings.signingKey = nil
        settings.keySource = nil
        settings.tlsIdentity = nil
        settings.assertion = nil
        settings.authMethod = nil
        settings.notes.append(
            "the credentials configured for client \(TerminalText.escaped(clientID)) at \(provider) were given with `\(name)` set to `\(TerminalText.escaped(variables[name] ?? ""))`, not `\(TerminalText.escaped(given[name] ?? ""))`: they would go to another server; not used (name the server with `issuer` in the clients file to use them there)"
        )
        return settings
    }

    /// The configuration of a service (client credentials, JWT bearer, token exchange) with these settings.
    public func serviceConfiguration() -> ClientConfiguration {
        var configuration = ClientConfiguration.service(
            clientID: clientID, clientSecret: secret, authMethod: authMethod, signingKey: signingKey, tlsIdentity: tlsIdentity)
        configuration.authorizationServer = authorizationServer
        return configuration
    }
}
