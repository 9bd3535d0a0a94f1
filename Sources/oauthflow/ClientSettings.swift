import ArgumentParser
import Foundation
import OAuthFlow
import Yams

/// One provider's entry in `$XDG_CONFIG_HOME/oauthflow/clients.yaml`.
///
/// ```yaml
/// google:
///   client_id: 1234-abc.apps.googleusercontent.com
///   client_secret_env: GOOGLE_CLIENT_SECRET     # or client_secret_file: ~/.config/oauthflow/google.secret
///   client_auth: client_secret_post             # optional: otherwise chosen from the descriptor
///   variables: {}
///   scopes: [openid, email]
/// ```
///
/// Secrets are given only by reference; a literal `client_secret` key is refused.
struct ClientFileEntry: Decodable {
    var clientID: String?
    var clientSecretEnv: String?
    var clientSecretFile: String?
    var variables: [String: String]?
    var scopes: [String]?
    var clientAuth: ProviderDescriptor.ClientAuth.Method?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientID = "client_id", clientSecretEnv = "client_secret_env", clientSecretFile = "client_secret_file"
        case variables, scopes, clientAuth = "client_auth"
    }
}

/// Where a login's client settings come from: flags, then environment, then the clients file.
///
/// A secret from the environment or the clients file belongs to the client id beside it: it is used only
/// when that client id is the one in use (or none is named there), so `--client-id other` never sends
/// another client's secret. ``secretSource`` says where the secret in use came from, and ``notes`` what
/// was left out and why, for the command to tell the user.
struct ClientSettings {
    var clientID: String
    var secret: Secret?
    var variables: [String: String]
    var scopes: [String]?
    var authMethod: ProviderDescriptor.ClientAuth.Method?
    /// Where ``secret`` came from, in words (`$VAR, named by --client-secret-env`); nil without a secret.
    var secretSource: String?
    /// Settings found but not used (another client's secret), one sentence each.
    var notes: [String] = []

    /// The secret in the environment variable a flag or the clients file names; unset or empty is a failure (exit 1).
    static func secretFromEnvironment(_ variable: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Secret {
        guard let value = environment[variable], !value.isEmpty else {
            throw CommandFailure("the client secret variable \(variable) is not set")
        }
        return Secret(value)
    }

    static func clientsFile(environment: [String: String]) -> URL {
        XDGDirectory.config(environment: environment).appendingPathComponent("oauthflow/clients.yaml")
    }

    /// `OAUTHFLOW_<PROVIDER>_<NAME>`, with the provider id upper-cased and `-` turned into `_`.
    static func environmentName(_ provider: String, _ name: String) -> String {
        "OAUTHFLOW_" + provider.uppercased().replacingOccurrences(of: "-", with: "_") + "_" + name
    }

    /// Checks a `--client-auth` value (a malformed command line, so `validate()` calls it).
    static func parseAuthMethod(_ flag: String?) throws -> ProviderDescriptor.ClientAuth.Method? {
        guard let flag else { return nil }
        guard let method = ProviderDescriptor.ClientAuth.Method(rawValue: flag) else {
            throw ValidationError("--client-auth must be none, client_secret_basic or client_secret_post, not \(flag)")
        }
        return method
    }

    /// The settings for a sign-in: client id, secret and authentication method each from the flag,
    /// then the environment (`OAUTHFLOW_<ID>_CLIENT_ID`, `..._CLIENT_SECRET`), then the clients file.
    ///
    /// - Parameter offerFlag: Whether the command has a `--client-id` flag to suggest when no client id is found.
    static func resolve(provider: String, clientID flag: String?, secretEnvironment: String?, clientAuth: String?,
                        variables flagVariables: [String: String], scopes flagScopes: [String],
                        environment: [String: String], offerFlag: Bool = true) throws -> ClientSettings {
        let entry = try loadEntry(provider: provider, environment: environment)
        guard let clientID = flag ?? environment[environmentName(provider, "CLIENT_ID")] ?? entry?.clientID, !clientID.isEmpty else {
            let places = [offerFlag ? "pass --client-id" : nil, "set \(environmentName(provider, "CLIENT_ID"))",
                          "add `client_id` under `\(provider):` in \(clientsFile(environment: environment).path)"].compactMap { $0 }
            throw CommandFailure("no client id for \(provider): " + places.dropLast().joined(separator: ", ") + ", or " + (places.last ?? ""))
        }
        let variables = (entry?.variables ?? [:]).merging(flagVariables) { _, flag in flag }
        var settings = ClientSettings(clientID: clientID, secret: nil, variables: variables,
                                      scopes: flagScopes.isEmpty ? entry?.scopes : flagScopes, authMethod: nil)
        try settings.resolveSecret(provider: provider, flag: secretEnvironment, clientAuth: clientAuth, entry: entry, environment: environment)
        return settings
    }

    /// A client whose id is already known (a stored session, a pending sign-in), with the secret
    /// and authentication method resolved as for a sign-in: flag, then environment, then clients file.
    static func client(id clientID: String, redirectURI: URL, provider: Provider, secretEnvironment: String? = nil, clientAuth: String? = nil,
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OAuthClient {
        let settings = try settings(id: clientID, provider: provider.id, secretEnvironment: secretEnvironment, clientAuth: clientAuth,
                                    environment: environment)
        return OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: clientID, redirectURI: redirectURI, clientSecret: settings.secret, authMethod: settings.authMethod))
    }

    /// The secret and method for a known client id (see ``client(id:redirectURI:provider:secretEnvironment:clientAuth:environment:)``).
    static func settings(id clientID: String, provider: String, secretEnvironment: String? = nil, clientAuth: String? = nil,
                         environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ClientSettings {
        let entry = try loadEntry(provider: provider, environment: environment)
        var settings = ClientSettings(clientID: clientID, secret: nil, variables: [:], scopes: nil, authMethod: nil)
        try settings.resolveSecret(provider: provider, flag: secretEnvironment, clientAuth: clientAuth, entry: entry, environment: environment)
        return settings
    }

    /// Picks the secret and method for ``clientID``: a flag always; the environment's and the clients file's
    /// only for the client id they stand beside. An explicit `--client-auth none` leaves out a secret that
    /// was not asked for by flag.
    private mutating func resolveSecret(provider: String, flag: String?, clientAuth: String?, entry: ClientFileEntry?,
                                        environment: [String: String]) throws {
        let file = Self.clientsFile(environment: environment).path
        // The file's secret and method belong to its client_id.
        var fileEntry = entry
        if let entry, let owner = entry.clientID, owner != clientID {
            let keys = [entry.clientSecretEnv.map { _ in "client_secret_env" }, entry.clientSecretFile.map { _ in "client_secret_file" },
                        entry.clientAuth.map { _ in "client_auth" }].compactMap { $0 }
            if !keys.isEmpty {
                notes.append("\(keys.joined(separator: " and ")) under `\(provider):` in \(file) \(keys.count == 1 ? "is" : "are") for client \(owner), not \(clientID); not used")
            }
            fileEntry = nil
        }
        let environmentSecret = Self.environmentName(provider, "CLIENT_SECRET")
        let environmentOwner = environment[Self.environmentName(provider, "CLIENT_ID")].flatMap { $0.isEmpty ? nil : $0 }
        var useEnvironmentSecret = !(environment[environmentSecret] ?? "").isEmpty
        if useEnvironmentSecret, let environmentOwner, environmentOwner != clientID {
            notes.append("\(environmentSecret) is for client \(environmentOwner) (\(Self.environmentName(provider, "CLIENT_ID"))), not \(clientID); not used")
            useEnvironmentSecret = false
        }
        let method = try Self.parseAuthMethod(clientAuth) ?? fileEntry?.clientAuth
        if let flag {
            secret = try Self.secretFromEnvironment(flag, environment: environment)
            secretSource = "$\(flag), named by --client-secret-env"
        } else if method == ProviderDescriptor.ClientAuth.Method.none {
            // A public sign-in asked for: a secret found in the environment or the file is not sent.
            if fileEntry?.clientSecretEnv != nil || fileEntry?.clientSecretFile != nil || useEnvironmentSecret {
                notes.append("client authentication is none; the client secret configured for \(clientID) is not sent")
            }
        } else if let variable = fileEntry?.clientSecretEnv {
            secret = try Self.secretFromEnvironment(variable, environment: environment)
            secretSource = "$\(variable), named by client_secret_env under `\(provider):` in \(file)"
        } else if useEnvironmentSecret, let value = environment[environmentSecret] {
            secret = Secret(value)
            secretSource = "$\(environmentSecret)"
        } else if let path = fileEntry?.clientSecretFile {
            let expanded = NSString(string: path).expandingTildeInPath
            let data: Data
            do {
                data = try SafeFile.read(expanded, limit: 64 * 1024)
            } catch let error as SafeFile.ReadError {
                throw CommandFailure("cannot read the client secret file \(error)")
            }
            secret = Secret(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            secretSource = "\(expanded), named by client_secret_file under `\(provider):` in \(file)"
        }
        authMethod = method
    }

    /// `credential_helpers.git` in the clients file: which session answers git for which remote.
    static func gitMappings(environment: [String: String]) throws -> [GitCredentialMapping] {
        let url = clientsFile(environment: environment)
        let text: String
        do {
            text = String(decoding: try SafeFile.read(url.path, limit: DescriptorDocument.maximumSize), as: UTF8.self)
        } catch let error as SafeFile.ReadError where error.kind == .missing {
            return []
        } catch let error as SafeFile.ReadError {
            throw CommandFailure("cannot read the clients file \(error)")
        }
        guard let git = try Yams.compose(yaml: text)?.mapping?["credential_helpers"]?.mapping?["git"] else { return [] }
        do {
            return try YAMLDecoder().decode([GitCredentialMapping].self, from: git)
        } catch {
            throw CommandFailure("\(url.path): `credential_helpers.git` must be a list of {url, provider, account, variables, username} entries")
        }
    }

    private static func loadEntry(provider: String, environment: [String: String]) throws -> ClientFileEntry? {
        let url = clientsFile(environment: environment)
        let text: String
        do {
            text = String(decoding: try SafeFile.read(url.path, limit: DescriptorDocument.maximumSize), as: UTF8.self)
        } catch let error as SafeFile.ReadError where error.kind == .missing {
            return nil
        } catch let error as SafeFile.ReadError {
            throw CommandFailure("cannot read the clients file \(error)")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw CommandFailure("\(url.path) is not valid YAML: \(error)")
        }
        guard let entryNode = node?.mapping?[provider] else { return nil }
        let known = Set(ClientFileEntry.CodingKeys.allCases.map(\.rawValue))
        for key in entryNode.mapping?.keys.compactMap(\.string) ?? [] where !known.contains(key) {
            let mark = entryNode.mapping?.keys.first { $0.string == key }?.mark
            let position = mark.map { ":\($0.line):\($0.column)" } ?? ""
            if key.contains("secret") {
                throw CommandFailure("\(url.path)\(position): `\(key)` holds a secret in clear; use client_secret_env or client_secret_file")
            }
            throw CommandFailure("\(url.path)\(position): unknown key `\(key)` under `\(provider)`")
        }
        // Each key's shape, checked here so the message names the key and its line (not a decoder's internals).
        let lists: Set<String> = ["scopes"], maps: Set<String> = ["variables"]
        for (key, value) in entryNode.mapping ?? [:] {
            guard let name = key.string else { continue }
            let position = key.mark.map { ":\($0.line):\($0.column)" } ?? ""
            let expected = lists.contains(name) ? "a list, such as [openid, email]" : maps.contains(name) ? "a mapping of name: value" : "a string"
            let fits = lists.contains(name) ? value.sequence?.allSatisfy({ $0.scalar != nil }) == true
                : maps.contains(name) ? value.mapping?.allSatisfy({ $0.value.scalar != nil }) == true
                : value.scalar != nil
            guard fits else {
                throw CommandFailure("\(url.path)\(position): `\(name)` under `\(provider)` must be \(expected)")
            }
        }
        do {
            return try YAMLDecoder().decode(ClientFileEntry.self, from: entryNode)
        } catch {
            throw CommandFailure("\(url.path): the entry for \(provider) cannot be read (\(provider).client_auth must be none, client_secret_basic or client_secret_post)")
        }
    }
}
