import Foundation
import OAuthFlowFiles

/// Which session answers git for which remote: an entry of `credential_helpers.git` in clients.yaml.
package struct GitCredentialMapping: Sendable, Hashable, Codable {
    /// `https://host[:port][/path-prefix]`: the protocol and host must match exactly, and the path, when
    /// git sends one, must start with the prefix.
    public var url: String
    /// The provider whose session answers.
    public var provider: String
    public var account: String?
    public var variables: [String: String]?
    /// The user name git sends along with the token (`oauth2` when unset; GitHub wants `x-access-token`).
    public var username: String?

    public init(url: String, provider: String, account: String? = nil, variables: [String: String]? = nil, username: String? = nil) {
        self.url = url
        self.provider = provider
        self.account = account
        self.variables = variables
        self.username = username
    }

    /// Whether this mapping answers `request`.
    public func matches(_ request: GitCredentialRequest) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
            scheme == request.protocolName?.lowercased()
        else { return false }
        let hostAndPort = components.port.map { "\(host):\($0)" } ?? host
        guard request.host?.lowercased() == hostAndPort else { return false }
        let prefix = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard !prefix.isEmpty, let path = request.path else { return true }
        let requested = path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return requested == prefix || requested.hasPrefix(prefix + "/")
    }

    /// The first mapping that answers `request`, or nil: git then asks its next helper.
    public static func first(in mappings: [GitCredentialMapping], for request: GitCredentialRequest) -> GitCredentialMapping? {
        mappings.first { $0.matches(request) }
    }
}
extension GitCredentialMapping {
    /// The identity of the clients file at `path` (device, inode, size, times), to take before reading it and
    /// give to ``remember(_:answeredBy:clientsFile:identity:store:)``.
    public static func identity(ofClientsFile path: String) -> String? {
        GitCredentialMemo.identity(of: path)
    }

    /// Remembers, for the `oauthflow` launcher, which session answers `request` (nil `mapping`: none does), as
    /// decided from the clients file at `clientsFile` whose identity was `identity` before it was read
    /// (``GitCredentialMemo/identity(of:)``). Nothing is remembered when the file changed since.
    ///
    /// The memo is a cache: a failure to write it is ignored, and the next request takes the full path again.
    public static func remember(
        _ request: GitCredentialRequest, answeredBy mapping: GitCredentialMapping?, clientsFile: String, identity: String?,
        store: FileTokenStore
    ) {
        guard let identity, GitCredentialMemo.identity(of: clientsFile) == identity, let protocolName = request.protocolName,
            let host = request.host
        else { return }
        let directory = store.directory.path
        var memo =
            GitCredentialMemo.read(sessionDirectory: directory) ?? GitCredentialMemo(clientsFile: clientsFile, clientsIdentity: identity, entries: [])
        if memo.clientsFile != clientsFile || memo.clientsIdentity != identity {
            memo = GitCredentialMemo(clientsFile: clientsFile, clientsIdentity: identity, entries: [])
        }
        let entry = GitCredentialMemo.Entry(
            protocolName: protocolName, host: host, path: request.path, providerID: mapping?.provider, account: mapping?.account ?? "default",
            username: mapping?.username ?? "oauth2")
        // Already remembered: nothing to write (a request the launcher hands over, refreshing, comes back with it).
        guard !memo.entries.contains(entry) else { return }
        memo = memo.adding(entry)
        try? store.writePrivateFile(Data(memo.rendered().utf8), to: GitCredentialMemo.path(sessionDirectory: directory))
    }
}
