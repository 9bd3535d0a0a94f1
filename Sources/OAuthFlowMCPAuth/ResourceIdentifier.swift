#if NIO
import Foundation
import OAuthFlow

/// An MCP server's canonical URI (MCP authorization, "Canonical Server URI"; RFC 8707 §2): what its tokens are for,
/// what its protected-resource metadata must name, and the key its sessions are stored under.
///
/// The scheme and host are lowercased, a default port and the fragment dropped, and a path that is only `/` or ends
/// with `/` loses that slash: `HTTPS://MCP.Example.com:443/mcp/` is `https://mcp.example.com/mcp`.
package struct ResourceIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The canonical URI.
    package let url: URL
    /// Its origin: scheme, host and port (`https://mcp.example.com:443`).
    package let origin: String

    /// The canonical form of `url`; nil when it has no http or https scheme or no host.
    package init?(_ url: URL) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        components.scheme = scheme
        components.host = host
        let defaultPort = scheme == "https" ? 443 : 80
        if components.port == defaultPort { components.port = nil }
        components.fragment = nil
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path
        guard let canonical = components.url else { return nil }
        self.url = canonical
        self.origin = "\(scheme)://\(host):\(components.port ?? defaultPort)"
    }

    package var description: String { url.absoluteString }

    /// The path with no trailing slash; empty for the root.
    package var path: String { URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "" }

    /// Where RFC 9728 §3.1 puts the metadata of this resource, then the root of its origin (MCP authorization, "Protected
    /// Resource Metadata Discovery Requirements"): `/.well-known/oauth-protected-resource/mcp`, then
    /// `/.well-known/oauth-protected-resource`.
    package var metadataLocations: [URL] {
        let suffixes = path.isEmpty ? [""] : [path, ""]
        return suffixes.compactMap { suffix in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.percentEncodedPath = "/.well-known/oauth-protected-resource" + suffix
            components?.percentEncodedQuery = nil
            return components?.url
        }
    }

    /// The root of the origin's protected-resource metadata, the last of ``metadataLocations``.
    package var rootMetadataLocation: URL? { metadataLocations.last }

    /// The origin of any URL, as ``origin`` is written; nil without a scheme or host.
    package static func origin(of url: URL) -> String? {
        ResourceIdentifier(url)?.origin
    }
}
#endif
