#if MCP
import Foundation
import OAuthFlow

extension ProtectedResource.Settings {
    /// The settings of an MCP server's token checks: `resource` and `audience` both the server's canonical URI, so that
    /// only tokens issued for this server are accepted (RFC 8707; MCP authorization, "Token Audience Binding and
    /// Validation"), whatever audience a trusted provider's descriptor names.
    ///
    /// - Parameters:
    ///   - uri: The MCP server's canonical URI, as clients write it: `https://mcp.example.com/mcp` (scheme and host in
    ///     lowercase, no default port, fragment or trailing slash).
    ///   - scopesSupported: The scopes the server knows, for its metadata (`scopes_supported`).
    ///   - resourceName: A human-readable name, for its metadata (`resource_name`).
    public static func mcpServer(at uri: URL, scopesSupported: [String] = [], resourceName: String? = nil) -> Self {
        Self(resource: uri, audience: uri.absoluteString, scopesSupported: scopesSupported, resourceName: resourceName)
    }
}
#endif
