import Foundation

extension ClientSettingsResolver {
    /// Which session answers git for which remote: an entry of `credential_helpers.git` in clients.yaml.
    public struct GitCredentialMapping: Sendable, Hashable, Codable {
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

        /// Whether this mapping answers git's request, given as its attributes (`protocol`, `host`, and `path` when
        /// `credential.useHttpPath` is set).
        public func matches(_ request: [String: String]) -> Bool {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
                scheme == request["protocol"]?.lowercased()
            else { return false }
            let hostAndPort = components.port.map { "\(host):\($0)" } ?? host
            guard request["host"]?.lowercased() == hostAndPort else { return false }
            let prefix = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard !prefix.isEmpty, let path = request["path"] else { return true }
            let requested = path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            return requested == prefix || requested.hasPrefix(prefix + "/")
        }
    }
}
