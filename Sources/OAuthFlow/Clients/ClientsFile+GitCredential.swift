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
