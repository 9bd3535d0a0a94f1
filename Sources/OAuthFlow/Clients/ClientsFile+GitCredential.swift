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
    /// - Throws: ``ClientSettingsError`` `invalid_clients_file` when the key is not a list of mappings.
    public func gitCredentialMappings() throws -> [ClientSettingsResolver.GitCredentialMapping] {
        try decode(
            [ClientSettingsResolver.GitCredentialMapping].self, at: ["credential_helpers", "git"],
            shape: "a list of {url, provider, account, variables, username} entries") ?? []
    }
}
