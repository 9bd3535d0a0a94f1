/// A string that must never reach a log or an error message: a code, verifier, token or secret.
///
/// Its `description` and `debugDescription` are redacted, so interpolating it
/// into a log line or printing a value that holds it shows only its length.
/// Read ``value`` where the real text is needed, such as building a request body.
public struct Secret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret text itself.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    public var description: String { "<redacted \(value.utf8.count) bytes>" }
    public var debugDescription: String { description }

    /// Compares with `other` in time that depends only on the lengths, not on where they differ.
    public func constantTimeEquals(_ other: String) -> Bool {
        ConstantTime.equals(value, other)
    }
}
