import Foundation

extension Provider {
    /// Where a native client's loopback redirect listens, and the one way its URI is written (RFC 8252 §7.3).
    public struct Loopback: Sendable, Hashable {
        /// The port a login listens on.
        public enum Port: Sendable, Hashable {
            /// A free port chosen when the login starts.
            case ephemeral
            case fixed(Int)
        }

        /// The path of the post-logout redirect URI a sign-out in the browser comes back to (`oauthflow logout --end-session`).
        package static let postLogoutPath = "/logged-out"

        /// The host the listener binds and the redirect URI names: `localhost` in a descriptor becomes
        /// `127.0.0.1` (RFC 8252 §8.3) unless the descriptor keeps `localhost`, an IPv6 literal has no brackets here.
        public let host: String
        public let port: Port
        public let path: String

        /// Whether the redirect URI names `localhost` (`redirect.loopback.write_localhost`): the listener then binds
        /// 127.0.0.1 and ::1 on one port, so the callback arrives whichever address the browser resolves the name to.
        package var keepsLocalhost: Bool { host == "localhost" }

        /// - Parameter keepingLocalhost: Write `localhost` as the descriptor does, rather than `127.0.0.1`.
        package init(host: String, port: Port, path: String, keepingLocalhost: Bool = false) {
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            let localhost = bare.lowercased() == "localhost"
            self.host = localhost ? (keepingLocalhost ? "localhost" : "127.0.0.1") : bare
            self.port = port
            self.path = path
        }

        /// The fixed port, or nil for an ephemeral one.
        public var fixedPort: Int? {
            if case let .fixed(number) = port { return number }
            return nil
        }

        /// The redirect URI with `port`: `http://HOST:PORT/PATH`, an IPv6 host in brackets.
        public func uri(port: Int) -> URL? {
            let hostPart = host.contains(":") ? "[\(host)]" : host
            return URL(string: "http://\(hostPart):\(port)\(path)")
        }

        /// The redirect URI as `providers show` prints it, `<ephemeral port>` standing for a port not chosen yet.
        public var display: String {
            let hostPart = host.contains(":") ? "[\(host)]" : host
            return "http://\(hostPart):\(fixedPort.map(String.init) ?? "<ephemeral port>")\(path)"
        }
    }
}
