import Foundation

/// A URL's origin (RFC 6454 §4): its scheme and host lowercased, and its port, the scheme's default when none is
/// written. Every check that a token, a proof's nonce or a credential stays with its own server compares these.
package struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    /// The port; nil only for a scheme with no default port (neither http nor https) and none written.
    let port: Int?

    /// Nil for a URL without a scheme or a host.
    package init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty, let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    /// Whether both URLs have an origin, and it is the same one.
    package static func same(_ first: URL, _ second: URL) -> Bool {
        guard let origin = Origin(first) else { return false }
        return origin == Origin(second)
    }

    /// `scheme://host:port`, an IPv6 address in brackets.
    package var description: String {
        "\(scheme)://" + (host.contains(":") ? "[\(host)]" : host) + (port.map { ":\($0)" } ?? "")
    }
}
