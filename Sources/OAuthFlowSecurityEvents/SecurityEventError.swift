import OAuthFlow

/// Why a transmitter's configuration or stream management failed.
public struct SecurityEventError: MessageError, Hashable {
    public typealias Code = ErrorCode<SecurityEventError>

    public let code: Code
    public let message: String
    /// The HTTP status the transmitter answered, when it answered.
    public let status: Int?

    init(_ code: Code, _ message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }
}

extension ErrorCode where Domain == SecurityEventError {
    /// The descriptor or the transmitter's configuration lacks what the call needs (a configuration document, an
    /// endpoint, keys), or names an endpoint on another origin than the transmitter's; nothing was sent.
    public static let configuration = Self("configuration")
    /// The transmitter refused the request or answered something that is not what SSF 1.0 says it answers.
    public static let transmitter = Self("transmitter")
    /// The transmitter could not be reached.
    public static let unreachable = Self("unreachable")
}

extension SecurityEventError: CodedError {}
