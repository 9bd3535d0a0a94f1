import Foundation

/// The clients file's `credential_helpers.git`: which session answers git for which remote.
///
/// ```yaml
/// credential_helpers:          # a reserved key, not a provider
///   git:
///     - url: https://git.example.com/team
///       provider: gitlab
/// ```
extension ClientsFile {
    /// The mappings under `credential_helpers.git`, in order; none when the file or the key is absent.
    ///
    /// - Throws: ``ClientSettingsError`` `invalid_clients_file` when the key is not a list of mappings, or a
    ///   mapping's `url` is not https (or http to this machine): git would send the token in clear.
    public func gitCredentialMappings() throws -> [ClientSettingsResolver.GitCredentialMapping] {
        let mappings =
            try decode(
                [ClientSettingsResolver.GitCredentialMapping].self, at: ["credential_helpers", "git"],
                shape: "a list of {url, provider, account, variables, username} entries") ?? []
        // A key a mapping does not take is refused, as an entry's is: `client_id` there would be silently ignored, and the
        // entry's client used for another server's remote.
        // `<<`: a YAML merge key, which the decoder flattens into the mapping's own keys.
        let known: Set<String> = ["url", "provider", "account", "variables", "username", "<<"]
        for (index, item) in (try root()?.mapping?["credential_helpers"]?.mapping?["git"]?.sequence ?? []).enumerated() {
            for key in item.mapping.map({ Array($0.keys) }) ?? [] {
                guard let name = key.string, !known.contains(name) else { continue }
                let position = key.mark.map { ":\($0.line):\($0.column)" } ?? ""
                throw ClientSettingsError(
                    .invalidClientsFile,
                    "\(url.path)\(position): unknown key `\(name)` in `credential_helpers.git[\(index)]`, which takes url, provider, account, variables and username; another client for another server is an entry of its own (its descriptor copied under a second id)"
                )
            }
        }
        for (index, mapping) in mappings.enumerated() {
            guard let remote = URL(string: mapping.url), remote.host?.isEmpty == false, TransportPolicy.isSecure(remote) else {
                throw ClientSettingsError(
                    .invalidClientsFile,
                    "\(url.path): `credential_helpers.git[\(index)].url` must be an https URL (or http to this machine): git would send the token in clear"
                )
            }
        }
        return mappings
    }
}
