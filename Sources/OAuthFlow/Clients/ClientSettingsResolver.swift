import Foundation

/// Resolves a client's settings as `oauthflow` does: each setting from the host's ``ClientSettings/Overrides``,
/// then the environment (`OAUTHFLOW_<PROVIDER>_CLIENT_ID`, `OAUTHFLOW_<PROVIDER>_CLIENT_SECRET`), then the
/// clients file (``clientsFileURL``, `$XDG_CONFIG_HOME/oauthflow/clients.yaml` by default).
///
/// ```swift
/// let settings = try ClientSettingsResolver(environment: ProcessInfo.processInfo.environment).settings(for: "google")
/// let client = OAuthClient(provider: provider, configuration: settings.configuration(redirectURI: redirectURI))
/// ```
///
/// A secret from the environment or the clients file goes only with the client id beside it; ``ClientSettings/notes``
/// says what was left out.
public struct ClientSettingsResolver: Sendable {
    /// The environment read for client ids, secrets and the clients file's location.
    public let environment: [String: String]
    /// The clients file.
    public let clientsFileURL: URL

    /// - Parameters:
    ///   - environment: The variables to read (`ProcessInfo.processInfo.environment` for the process's, as the CLI
    ///     does): the library never reads the process environment by itself.
    ///   - clientsFile: The clients file; `$XDG_CONFIG_HOME/oauthflow/clients.yaml` of `environment` by default.
    public init(environment: [String: String], clientsFile: URL? = nil) {
        self.environment = environment
        self.clientsFileURL = clientsFile ?? ClientsFile.defaultURL(environment: environment)
    }

    /// The host's own overrides by provider name (a command line's flags), ahead of the environment and the file:
    /// what every call of this resolver uses when it names no overrides of its own. Empty by default.
    public var overrides: [String: ClientSettings.Overrides] = [:]

    /// `given`, unless it says nothing: then this resolver's own overrides for `provider`.
    private func overrides(_ given: ClientSettings.Overrides, _ provider: String) -> ClientSettings.Overrides {
        given == ClientSettings.Overrides() ? overrides[provider] ?? given : given
    }

    /// `OAUTHFLOW_<PROVIDER>_CLIENT_ID`, with the provider id upper-cased and `-` turned into `_`.
    public static func clientIDVariable(for provider: String) -> String { variable(provider, "CLIENT_ID") }

    /// `OAUTHFLOW_<PROVIDER>_CLIENT_SECRET`, with the provider id upper-cased and `-` turned into `_`.
    public static func clientSecretVariable(for provider: String) -> String { variable(provider, "CLIENT_SECRET") }

    private static func variable(_ provider: String, _ name: String) -> String {
        "OAUTHFLOW_" + provider.uppercased().replacingOccurrences(of: "-", with: "_") + "_" + name
    }

    /// The clients file, read now.
    ///
    /// - Throws: ``ClientSettingsError`` `unreadable_clients_file`.
    package func clientsFile() throws -> ClientsFile {
        try ClientsFile(contentsOf: clientsFileURL)
    }

    /// The clients file's `credential_helpers.git` mappings (which session answers git for which remote), in order;
    /// none when the file or the key is absent.
    ///
    /// - Throws: ``ClientSettingsError`` `invalid_clients_file` or `unreadable_clients_file`.
    public func gitCredentialMappings() throws -> [ClientSettingsResolver.GitCredentialMapping] {
        try clientsFile().gitCredentialMappings()
    }

    /// The variables a new sign-in with `provider` is given (the clients file's entry, the host's overrides over them),
    /// read without resolving the client's secret or key, which a session's check does not need.
    ///
    /// - Throws: The clients file's errors.
    package func variables(for provider: String) throws -> [String: String] {
        let entry = try clientsFile().entry(for: provider)
        return (entry?.variables ?? [:]).merging(overrides(.init(), provider).variables) { _, given in given }
    }

    /// The settings for a new sign-in with `provider`.
    ///
    /// - Throws: ``ClientSettingsError``: `missing_client_id` when nothing names a client id (the message says
    ///   which variable and which file could), `missing_secret`, `unreadable_secret_file`, and the clients file's errors.
    public func settings(for provider: String, overrides given: ClientSettings.Overrides = .init()) throws -> ClientSettings {
        let overrides = self.overrides(given, provider)
        let entry = try clientsFile().entry(for: provider)
        let idVariable = Self.clientIDVariable(for: provider)
        guard let clientID = overrides.clientID ?? environment[idVariable] ?? entry?.clientID, !clientID.isEmpty else {
            throw ClientSettingsError(
                .missingClientID,
                "no client id for \(provider): set \(idVariable), or add `client_id` under `\(provider):` in \(clientsFileURL.path)",
                provider: provider)
        }
        let scopes = overrides.scopes.flatMap { $0.isEmpty ? nil : $0 } ?? entry?.scopes
        var settings = ClientSettings(clientID: clientID, variables: entry?.variables ?? [:], scopes: scopes)
        try resolveSecret(&settings, provider: provider, overrides: overrides, entry: entry)
        return settings.overriding(variables: overrides.variables, provider: provider)
    }

    /// The settings for a client whose id is already known (a pending sign-in's): the secret and method
    /// resolved as for a sign-in, the variables only those of `overrides`, and no scopes.
    ///
    /// The credentials are left out, as for a sign-in, when a variable the clients file's entry states has another
    /// value here (a session signed in to another tenant): they are that tenant's server's alone.
    public func settings(clientID: String, provider: String, overrides given: ClientSettings.Overrides = .init()) throws -> ClientSettings {
        let overrides = self.overrides(given, provider)
        let entry = try clientsFile().entry(for: provider)
        var settings = ClientSettings(clientID: clientID, variables: entry?.variables ?? [:])
        try resolveSecret(&settings, provider: provider, overrides: overrides, entry: entry)
        settings = settings.overriding(variables: overrides.variables, provider: provider)
        settings.variables = overrides.variables
        return settings
    }

    /// The settings for a stored session: its client id and variables (``ClientSettings/Overrides/variables`` win),
    /// with the secret and method resolved as for a sign-in.
    public func settings(for session: StoredSession, overrides: ClientSettings.Overrides = .init()) throws -> ClientSettings {
        var given = self.overrides(overrides, session.key.providerID)
        given.variables = session.variables.merging(overrides.variables) { _, given in given }
        return try settings(clientID: session.clientID, provider: session.key.providerID, overrides: given)
    }

    /// Picks the secret and method for `settings.clientID`: a named variable always; the environment's and
    /// the clients file's only for the client id they stand beside.
    private func resolveSecret(
        _ settings: inout ClientSettings, provider: String, overrides: ClientSettings.Overrides,
        entry: ClientsFile.Entry?
    ) throws {
        let clientID = settings.clientID
        let file = clientsFileURL.path
        // The file's secret and method belong to its client_id.
        var fileEntry = entry
        if let entry, let owner = entry.clientID, owner != clientID {
            let keys = [
                entry.clientSecretEnvironment.map { _ in "client_secret_env" }, entry.clientSecretFile.map { _ in "client_secret_file" },
                entry.privateKeyFile.map { _ in "private_key_file" }, entry.privateKeyEnvironment.map { _ in "private_key_env" },
                entry.certificateFile.map { _ in "certificate_file" }, entry.clientAuth.map { _ in "client_auth" },
            ].compactMap { $0 }
            if !keys.isEmpty {
                settings.notes.append(
                    "\(keys.dropLast().joined(separator: ", "))\(keys.count > 1 ? " and " : "")\(keys.last ?? "") under `\(provider):` in \(file) \(keys.count == 1 ? "is" : "are") for client \(owner), not \(clientID); not used"
                )
            }
            fileEntry = nil
        }
        let secretVariable = Self.clientSecretVariable(for: provider)
        let idVariable = Self.clientIDVariable(for: provider)
        let environmentOwner = environment[idVariable].flatMap { $0.isEmpty ? nil : $0 }
        var useEnvironmentSecret = !(environment[secretVariable] ?? "").isEmpty
        if useEnvironmentSecret, let environmentOwner, environmentOwner != clientID {
            settings.notes.append("\(secretVariable) is for client \(environmentOwner) (\(idVariable)), not \(clientID); not used")
            useEnvironmentSecret = false
        }
        let method = overrides.authMethod ?? fileEntry?.clientAuth
        // A named variable is the secret of the client named beside it: never sent with another client's id (a stored
        // session's, or a pending sign-in's).
        var named = overrides.secretVariable
        if let variable = named, let owner = overrides.clientID, owner != clientID {
            settings.notes.append("$\(variable) is the secret of client \(owner), not \(clientID); not used")
            named = nil
        }
        if let variable = named {
            settings.secret = try secret(in: variable, provider: provider)
            settings.secretSource = .namedVariable(variable)
        } else if method == ProviderDescriptor.ClientAuthMethod.none {
            // A public sign-in asked for: a secret found in the environment or the file is not sent.
            if fileEntry?.clientSecretEnvironment != nil || fileEntry?.clientSecretFile != nil || useEnvironmentSecret {
                settings.notes.append("client authentication is none; the client secret configured for \(clientID) is not sent")
            }
        } else if let variable = fileEntry?.clientSecretEnvironment {
            settings.secret = try secret(in: variable, provider: provider)
            settings.secretSource = .clientsFileVariable(variable, provider: provider, clientsFile: file)
        } else if useEnvironmentSecret, let value = environment[secretVariable] {
            settings.secret = Secret(value)
            settings.secretSource = .providerVariable(secretVariable)
        } else if let path = fileEntry?.clientSecretFile {
            let expanded = expandingTilde(path)
            settings.secret = Secret(try read(expanded, what: "client secret", provider: provider).trimmingCharacters(in: .whitespacesAndNewlines))
            settings.secretSource = .clientsFileSecretFile(expanded, provider: provider, clientsFile: file)
        }
        settings.authMethod = method
        try bind(&settings, provider: provider, entry: fileEntry)
        if method != ProviderDescriptor.ClientAuthMethod.none {
            try resolveKey(
                &settings, provider: provider, entry: fileEntry, environmentIsTheClients: environmentOwner == nil || environmentOwner == clientID)
        }
    }

    /// Binds the settings to the authorization server the clients file's entry names (`issuer`): an https URL, or http to
    /// a loopback host, without a query or fragment.
    private func bind(_ settings: inout ClientSettings, provider: String, entry: ClientsFile.Entry?) throws {
        guard let issuer = entry?.issuer else { return }
        guard let url = URL(string: issuer), url.host?.isEmpty == false, url.query == nil, url.fragment == nil, TransportPolicy.isSecure(url) else {
            throw ClientSettingsError(
                .invalidClientsFile,
                "\(clientsFileURL.path): `issuer` under `\(provider):` must be the authorization server's issuer, an https URL (or http to a loopback host) without a query or fragment",
                provider: provider)
        }
        settings.authorizationServer = url
    }

    /// `OAUTHFLOW_<PROVIDER>_PRIVATE_KEY`, with the provider id upper-cased and `-` turned into `_`.
    public static func privateKeyVariable(for provider: String) -> String { variable(provider, "PRIVATE_KEY") }

    /// The private key (`private_key_env`, `OAUTHFLOW_<PROVIDER>_PRIVATE_KEY`, `private_key_file`) and the client
    /// certificate (`certificate_file`, `ca_file`) of the clients file's entry; the key is read and checked now.
    private func resolveKey(_ settings: inout ClientSettings, provider: String, entry: ClientsFile.Entry?, environmentIsTheClients: Bool) throws {
        let file = clientsFileURL.path
        var text: String?
        var source: String?
        if let variable = entry?.privateKeyEnvironment {
            guard let value = environment[variable], !value.isEmpty else {
                throw ClientSettingsError(
                    .missingSecret, Self.unset(variable, holding: "private key", value: environment[variable]), provider: provider)
            }
            text = value
            source = "$\(variable), named by private_key_env under `\(provider):` in \(file)"
        } else if environmentIsTheClients, let value = environment[Self.privateKeyVariable(for: provider)], !value.isEmpty {
            text = value
            source = "$\(Self.privateKeyVariable(for: provider))"
        } else if let path = entry?.privateKeyFile {
            let expanded = expandingTilde(path)
            text = try read(expanded, what: "private key", provider: provider)
            source = "\(expanded), named by private_key_file under `\(provider):` in \(file)"
        }
        let certificate = try entry?.certificateFile.map { try read(expandingTilde($0), what: "client certificate", provider: provider) }
        let roots = try entry?.caFile.map { try read(expandingTilde($0), what: "CA certificate", provider: provider) }
        guard let text, let source else {
            if certificate != nil {
                throw ClientSettingsError(
                    .missingSecret, "`certificate_file` under `\(provider):` in \(file) needs its key: add private_key_file or private_key_env",
                    provider: provider)
            }
            return
        }
        var algorithm: JWSAlgorithm?
        if let name = entry?.signingAlg {
            guard let chosen = JWSAlgorithm(rawValue: name), ClientConfiguration.SigningKey.algorithms.contains(chosen) else {
                throw ClientSettingsError(
                    .invalidClientsFile,
                    "\(file): `signing_alg` under `\(provider):` must be \(JWSAlgorithm.listed(ClientConfiguration.SigningKey.algorithms))",
                    provider: provider)
            }
            algorithm = chosen
        }
        do {
            settings.signingKey = try ClientConfiguration.SigningKey(
                text: text, algorithm: algorithm, keyID: entry?.keyID, certificatePEM: certificate)
        } catch let error as FlowError {
            // A certificate's key may be one OAuthFlow does not sign assertions with (P-384, say): mutual TLS still uses it.
            guard certificate != nil, entry?.signingAlg == nil else {
                throw ClientSettingsError(.unreadableSecretFile, "the private key from \(source): \(error.message)", provider: provider)
            }
            settings.notes.append("the private key from \(source) serves mutual TLS only: \(error.message)")
        }
        if let certificate {
            settings.tlsIdentity = TLSClientIdentity(certificateChainPEM: certificate, privateKeyPEM: Secret(text), trustRootsPEM: roots)
        }
        settings.keySource = source
    }

    /// A small file's text (a secret, a key, a certificate), at most 64 KiB.
    private func read(_ path: String, what: String, provider: String) throws -> String {
        do {
            return String(decoding: try SafeFile.read(path, limit: 64 * 1024), as: UTF8.self)
        } catch let error as SafeFile.ReadError {
            throw ClientSettingsError(.unreadableSecretFile, "cannot read the \(what) file \(error)", provider: provider)
        }
    }

    /// The secret in an environment variable; unset or empty is an error.
    private func secret(in variable: String, provider: String) throws -> Secret {
        guard let value = environment[variable], !value.isEmpty else {
            throw ClientSettingsError(
                .missingSecret, Self.unset(variable, holding: "client secret", value: environment[variable]), provider: provider)
        }
        return Secret(value)
    }

    /// Why the variable `name`, meant to hold a `what`, gives none: unset, empty, or a name no variable has (letters,
    /// digits and `_`, not beginning with a digit). Such a name is most likely the secret itself, given where its
    /// variable's name goes: it is not repeated.
    static func unset(_ name: String, holding what: String, value: String?) -> String {
        let isName =
            !name.isEmpty && name.utf8.count <= 255 && name.first?.isNumber == false
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
        guard isName else {
            return
                "the name given for the \(what)'s environment variable is not a variable name (letters, digits and `_`); it may be the \(what) itself, so it is not shown: put the \(what) in a variable and give that variable's name (--client-secret-env NAME, `client_secret_env: NAME` in the clients file)"
        }
        return value == nil ? "the \(what) variable \(name) is not set" : "the \(what) variable \(name) is set but empty"
    }

    /// `~` and `~/…` with the environment's home directory.
    private func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
