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
struct ClientSettings {
    var clientID: String
    var secret: Secret?
    var variables: [String: String]
    var scopes: [String]?
    var authMethod: ProviderDescriptor.ClientAuth.Method?

    /// The secret in the environment variable a flag or the clients file names; unset or empty is a usage error.
    static func secretFromEnvironment(_ variable: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Secret {
        guard let value = environment[variable], !value.isEmpty else {
            throw ValidationError("the client secret variable \(variable) is not set")
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

    /// The settings for a sign-in: client id, secret and authentication method each from the flag,
    /// then the environment (`OAUTHFLOW_<ID>_CLIENT_ID`, `..._CLIENT_SECRET`), then the clients file.
    static func resolve(provider: String, clientID flag: String?, secretEnvironment: String?, clientAuth: String?,
                        variables flagVariables: [String: String], scopes flagScopes: [String],
                        environment: [String: String]) throws -> ClientSettings {
        let entry = try loadEntry(provider: provider, environment: environment)
        guard let clientID = flag ?? environment[environmentName(provider, "CLIENT_ID")] ?? entry?.clientID, !clientID.isEmpty else {
            throw ValidationError("""
                no client id for \(provider): pass --client-id, set \(environmentName(provider, "CLIENT_ID")), \
                or add `client_id` under `\(provider):` in \(clientsFile(environment: environment).path)
                """)
        }
        let variables = (entry?.variables ?? [:]).merging(flagVariables) { _, flag in flag }
        return ClientSettings(clientID: clientID, secret: try secret(provider: provider, flag: secretEnvironment, entry: entry, environment: environment),
                              variables: variables, scopes: flagScopes.isEmpty ? entry?.scopes : flagScopes,
                              authMethod: try authMethod(flag: clientAuth, entry: entry))
    }

    /// A client whose id is already known (a stored session, a pending sign-in), with the secret
    /// and authentication method resolved as for a sign-in: flag, then environment, then clients file.
    static func client(id clientID: String, redirectURI: URL, provider: Provider, secretEnvironment: String? = nil, clientAuth: String? = nil,
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OAuthClient {
        let entry = try loadEntry(provider: provider.id, environment: environment)
        return OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: clientID, redirectURI: redirectURI,
            clientSecret: try secret(provider: provider.id, flag: secretEnvironment, entry: entry, environment: environment),
            authMethod: try authMethod(flag: clientAuth, entry: entry)))
    }

    private static func secret(provider: String, flag: String?, entry: ClientFileEntry?, environment: [String: String]) throws -> Secret? {
        if let variable = flag ?? entry?.clientSecretEnv {
            return try secretFromEnvironment(variable, environment: environment)
        }
        if let value = environment[environmentName(provider, "CLIENT_SECRET")], !value.isEmpty {
            return Secret(value)
        }
        guard let file = entry?.clientSecretFile else { return nil }
        let path = NSString(string: file).expandingTildeInPath
        let data: Data
        do {
            data = try SafeFile.read(path, limit: 64 * 1024)
        } catch let error as SafeFile.ReadError {
            throw ValidationError("cannot read the client secret file \(error)")
        }
        return Secret(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func authMethod(flag: String?, entry: ClientFileEntry?) throws -> ProviderDescriptor.ClientAuth.Method? {
        guard let flag else { return entry?.clientAuth }
        guard let method = ProviderDescriptor.ClientAuth.Method(rawValue: flag) else {
            throw ValidationError("--client-auth must be none, client_secret_basic or client_secret_post, not \(flag)")
        }
        return method
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
            throw ValidationError("cannot read the clients file \(error)")
        }
        guard let git = try Yams.compose(yaml: text)?.mapping?["credential_helpers"]?.mapping?["git"] else { return [] }
        do {
            return try YAMLDecoder().decode([GitCredentialMapping].self, from: git)
        } catch {
            throw ValidationError("\(url.path): `credential_helpers.git` must be a list of {url, provider, account, variables, username} entries")
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
            throw ValidationError("cannot read the clients file \(error)")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw ValidationError("\(url.path) is not valid YAML: \(error)")
        }
        guard let entryNode = node?.mapping?[provider] else { return nil }
        let known = Set(ClientFileEntry.CodingKeys.allCases.map(\.rawValue))
        for key in entryNode.mapping?.keys.compactMap(\.string) ?? [] where !known.contains(key) {
            let mark = entryNode.mapping?.keys.first { $0.string == key }?.mark
            let position = mark.map { ":\($0.line):\($0.column)" } ?? ""
            if key.contains("secret") {
                throw ValidationError("\(url.path)\(position): `\(key)` holds a secret in clear; use client_secret_env or client_secret_file")
            }
            throw ValidationError("\(url.path)\(position): unknown key `\(key)` under `\(provider)`")
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
                throw ValidationError("\(url.path)\(position): `\(name)` under `\(provider)` must be \(expected)")
            }
        }
        do {
            return try YAMLDecoder().decode(ClientFileEntry.self, from: entryNode)
        } catch {
            throw ValidationError("\(url.path): the entry for \(provider) cannot be read (\(provider).client_auth must be none, client_secret_basic or client_secret_post)")
        }
    }
}
