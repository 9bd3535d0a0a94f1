import Foundation
import Yams

/// The user's clients file, `$XDG_CONFIG_HOME/oauthflow/clients.yaml`: which client each provider uses.
///
/// ```yaml
/// google:
///   client_id: 1234-abc.apps.googleusercontent.com
///   client_secret_env: GOOGLE_CLIENT_SECRET     # or client_secret_file: ~/.config/oauthflow/google.secret
///   client_auth: client_secret_post             # optional: otherwise chosen from the descriptor
///   # private_key_file: ~/.config/oauthflow/svc.pem   # private_key_jwt, or mutual TLS with certificate_file
///   # key_id: 2024-06                                  # the key's `kid`
///   variables: {}
///   scopes: [openid, email]
///   # issuer: https://accounts.google.com     # the authorization server these credentials are for, exactly
/// ```
///
/// Secrets are given only by reference; a literal `client_secret` key is refused. A missing file is
/// an empty one. Other top-level keys (such as `credential_helpers`) are read with ``decode(_:at:shape:)``.
package struct ClientsFile: Sendable {
    /// One provider's entry.
    public struct Entry: Sendable, Hashable, Decodable {
        public var clientID: String?
        /// The environment variable holding the client secret.
        public var clientSecretEnvironment: String?
        /// A file holding the client secret (`~` is the home directory).
        public var clientSecretFile: String?
        public var clientAuth: ProviderDescriptor.ClientAuthMethod?
        public var variables: [String: String]?
        public var scopes: [String]?
        /// A PEM or JWK file holding the client's private key: `private_key_jwt` signs with it, and mutual TLS
        /// presents `certificate_file` with it.
        public var privateKeyFile: String?
        /// The environment variable holding that key's PEM or JWK text.
        public var privateKeyEnvironment: String?
        /// The `kid` the provider registered the key under.
        public var keyID: String?
        /// RS256, PS256, ES256 or EdDSA; by default RS256 for an RSA key, ES256 for a P-256 key, EdDSA for an Ed25519 key.
        public var signingAlg: String?
        /// The client certificate (PEM): presented for mutual TLS, and its `x5t#S256` sent with assertions.
        public var certificateFile: String?
        /// Certificates (PEM) to verify the server's TLS certificate with, instead of the system's (a private CA).
        public var caFile: String?
        /// The issuer of the authorization server this entry's credentials were given for: they are sent to a provider
        /// whose `issuer` is this one exactly, and to no other (``ClientSettings/authorizationServer``).
        public var issuer: String?

        public init(
            clientID: String? = nil, clientSecretEnvironment: String? = nil, clientSecretFile: String? = nil,
            clientAuth: ProviderDescriptor.ClientAuthMethod? = nil, variables: [String: String]? = nil, scopes: [String]? = nil,
            privateKeyFile: String? = nil, privateKeyEnvironment: String? = nil, keyID: String? = nil, signingAlg: String? = nil,
            certificateFile: String? = nil, caFile: String? = nil, issuer: String? = nil
        ) {
            self.clientID = clientID
            self.clientSecretEnvironment = clientSecretEnvironment
            self.clientSecretFile = clientSecretFile
            self.clientAuth = clientAuth
            self.variables = variables
            self.scopes = scopes
            self.privateKeyFile = privateKeyFile
            self.privateKeyEnvironment = privateKeyEnvironment
            self.keyID = keyID
            self.signingAlg = signingAlg
            self.certificateFile = certificateFile
            self.caFile = caFile
            self.issuer = issuer
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case clientID = "client_id", clientSecretEnvironment = "client_secret_env", clientSecretFile = "client_secret_file"
            case clientAuth = "client_auth", variables, scopes
            case privateKeyFile = "private_key_file", privateKeyEnvironment = "private_key_env", keyID = "key_id"
            case signingAlg = "signing_alg", certificateFile = "certificate_file", caFile = "ca_file", issuer
        }
    }

    /// Where the file is (or would be).
    public let url: URL
    /// The file's text; nil when there is no file.
    private let text: String?

    /// `$XDG_CONFIG_HOME/oauthflow/clients.yaml` (default `~/.config/oauthflow/clients.yaml`).
    public static func defaultURL(environment: [String: String]) -> URL {
        XDGDirectory.config(environment: environment).appendingPathComponent("oauthflow/clients.yaml")
    }

    /// Reads the file at `url`; a missing file reads as an empty one.
    ///
    /// - Throws: ``ClientSettingsError`` `unreadable_clients_file` when something else is there or it cannot be read.
    public init(contentsOf url: URL) throws {
        self.url = url
        do {
            text = String(decoding: try SafeFile.read(url.path, limit: DescriptorDocument.maximumSize), as: UTF8.self)
        } catch let error as SafeFile.ReadError where error.kind == .missing {
            text = nil
        } catch let error as SafeFile.ReadError {
            throw ClientSettingsError(.unreadableClientsFile, "cannot read the clients file \(error)")
        }
    }

    /// The file as text, for a host that keeps its settings elsewhere; `url` only names it in messages.
    public init(text: String, url: URL) {
        self.url = url
        self.text = text
    }

    /// Whether a file was there to read.
    public var exists: Bool { text != nil }

    /// The entry for `provider`, or nil when the file has none.
    ///
    /// - Throws: ``ClientSettingsError``: `invalid_clients_file` for invalid YAML, an unknown key or a value of
    ///   the wrong shape (the message names the key and its line), `literal_secret` for a secret in clear.
    public func entry(for provider: String) throws -> Entry? {
        guard let entryNode = try root()?.mapping?[provider] else { return nil }
        let path = url.path
        let known = Set(Entry.CodingKeys.allCases.map(\.rawValue))
        for (key, value) in entryNode.mapping ?? [:] {
            guard let name = key.string, !known.contains(name) else { continue }
            let position = key.mark.map { ":\($0.line):\($0.column)" } ?? ""
            if name.contains("secret") {
                throw ClientSettingsError(
                    .literalSecret,
                    "\(path)\(position): `\(name)` holds a secret in clear; use client_secret_env or client_secret_file",
                    provider: provider)
            }
            // A key in clear: named as one (`private_key`), or PEM text under any name; `bogus_key: 1` is only unknown.
            if name.contains("private") || value.scalar?.string.contains("-----BEGIN") == true {
                throw ClientSettingsError(
                    .literalSecret,
                    "\(path)\(position): `\(name)` holds a key in clear; use private_key_file or private_key_env",
                    provider: provider)
            }
            throw ClientSettingsError(.invalidClientsFile, "\(path)\(position): unknown key `\(name)` under `\(provider)`", provider: provider)
        }
        // Each key's shape, checked here so the message names the key and its line (not a decoder's internals).
        let lists: Set<String> = ["scopes"], maps: Set<String> = ["variables"]
        for (key, value) in entryNode.mapping ?? [:] {
            guard let name = key.string else { continue }
            let position = key.mark.map { ":\($0.line):\($0.column)" } ?? ""
            let expected = lists.contains(name) ? "a list, such as [openid, email]" : maps.contains(name) ? "a mapping of name: value" : "a string"
            let fits =
                lists.contains(name)
                ? value.sequence?.allSatisfy({ $0.scalar != nil }) == true
                : maps.contains(name)
                    ? value.mapping?.allSatisfy({ $0.value.scalar != nil }) == true
                    : value.scalar != nil
            guard fits else {
                throw ClientSettingsError(
                    .invalidClientsFile, "\(path)\(position): `\(name)` under `\(provider)` must be \(expected)", provider: provider)
            }
        }
        do {
            return try YAMLDecoder().decode(Entry.self, from: entryNode)
        } catch {
            throw ClientSettingsError(
                .invalidClientsFile,
                "\(path): the entry for \(provider) cannot be read (\(provider).client_auth must be one of \(ProviderDescriptor.ClientAuthMethod.allCases.map(\.rawValue).joined(separator: ", ")))",
                provider: provider)
        }
    }

    /// The value under a path of keys (such as `["credential_helpers", "git"]`), decoded; nil when it is absent.
    ///
    /// - Parameter shape: What the value must look like, in words, for the message when it does not.
    /// - Throws: ``ClientSettingsError`` `invalid_clients_file` for invalid YAML or a value that does not decode.
    public func decode<Value: Decodable>(_ type: Value.Type, at keys: [String], shape: String) throws -> Value? {
        var node = try root()
        for key in keys { node = node?.mapping?[key] }
        guard let node else { return nil }
        do {
            return try YAMLDecoder().decode(Value.self, from: node)
        } catch {
            throw ClientSettingsError(.invalidClientsFile, "\(url.path): `\(keys.joined(separator: "."))` must be \(shape)")
        }
    }

    func root() throws -> Node? {
        guard let text else { return nil }
        do {
            return try Yams.compose(yaml: text)
        } catch {
            throw ClientSettingsError(.invalidClientsFile, "\(url.path) is not valid YAML: \(error)")
        }
    }
}
