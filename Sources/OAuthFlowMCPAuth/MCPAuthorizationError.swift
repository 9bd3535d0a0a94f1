#if NIO
import Foundation
import OAuthFlow

/// Why an MCP server could not be authorized: what its metadata, its authorization server or a registration said,
/// in one sentence that names the URL and what to do.
///
/// The MCP SDK's `HTTPClientTransport` shows the sentence (its `errorDescription`) after "Authorization flow failed:".
public struct MCPAuthorizationError: MessageError, Hashable {
    public typealias Code = ErrorCode<MCPAuthorizationError>

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == MCPAuthorizationError {
    /// The MCP server's URL, or a URL its metadata names, is neither https nor http to a loopback host.
    public static let insecureURL = Self("insecure_url")
    /// The server points at protected-resource metadata on another origin than its own and the host trusts.
    public static let untrustedMetadata = Self("untrusted_metadata")
    /// No protected-resource or authorization server metadata could be had at any of the places the spec names.
    public static let metadataUnavailable = Self("metadata_unavailable")
    /// A metadata document is not one: not a JSON object, a member of the wrong type, a name repeated, too large.
    public static let invalidMetadata = Self("invalid_metadata")
    /// The protected-resource metadata names another `resource` than the MCP server's canonical URI (RFC 9728 §3.3).
    public static let resourceMismatch = Self("resource_mismatch")
    /// The authorization server's metadata names another `issuer` than the one it was fetched for (RFC 8414 §3.3).
    public static let issuerMismatch = Self("issuer_mismatch")
    /// The authorization server cannot sign this client in as the spec requires (no PKCE S256, no authorization code grant).
    public static let unsupportedServer = Self("unsupported_server")
    /// No client could be had: none given for the issuer, no client ID metadata document it takes, no registration endpoint.
    public static let noClient = Self("no_client")
    /// The registration endpoint refused the registration or answered something that is not a client registration (RFC 7591 §3.2).
    public static let registrationFailed = Self("registration_failed")
    /// The server still refuses a token just issued for it, or demands a scope again after a sign-in that asked for it.
    public static let refusedAgain = Self("refused_again")
    /// The authorization server is named by no pinned provider, and the configuration requires one.
    public static let unpinnedServer = Self("unpinned_server")
    /// No session is stored for the MCP server (and no client registered for it): sign in first.
    public static let notSignedIn = Self("not_signed_in")
    /// The session is DPoP-bound (RFC 9449) and the requests carry no proofs: the transport lacks
    /// `MCPAuthorizer.requestModifier`.
    public static let dpopProofsMissing = Self("dpop_proofs_missing")
}
#endif
