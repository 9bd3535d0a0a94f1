#if MCP
import Foundation
import OAuthFlow

/// Why a ``ProtectedMCPServer`` could not be set up as its configuration says: one sentence naming the value and what
/// to write instead. Thrown when the host starts, never for a request.
public struct MCPServerConfigurationError: MessageError, Hashable {
    public typealias Code = ErrorCode<MCPServerConfigurationError>

    public let code: Code
    public let message: String

    init(_ message: String, code: Code = .invalidConfiguration) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == MCPServerConfigurationError {
    /// The resource is not a canonical MCP server URI, the audience is not that URI, a scope is not a scope token, or a
    /// limit is not positive.
    public static let invalidConfiguration = Self("invalid_configuration")
}
#endif
