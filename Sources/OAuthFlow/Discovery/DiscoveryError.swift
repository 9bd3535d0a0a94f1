import Foundation

/// Why a provider's metadata (OpenID Connect Discovery 1.0, RFC 8414) could not be used.
public struct DiscoveryError: MessageError, Hashable {
    public typealias Code = ErrorCode<DiscoveryError>

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == DiscoveryError {
    /// The descriptor asks for no discovery, or has no issuer to discover from.
    public static let notConfigured = Self("not_configured")
    /// The document could not be fetched (network, status).
    public static let unreachable = Self("unreachable")
    /// The answer is not a metadata document.
    public static let invalidDocument = Self("invalid_document")
    /// The document's `issuer` is not the descriptor's (RFC 8414 §3.3; a trailing slash counts).
    public static let issuerMismatch = Self("issuer_mismatch")
    /// The issuer given is not an issuer identifier (RFC 8414 §2: https, no query or fragment).
    public static let invalidIssuer = Self("invalid_issuer")
    /// The document names an endpoint over plain http to a host that is not this machine.
    public static let insecureEndpoint = Self("insecure_endpoint")
}

extension DiscoveryError: CodedError {}
