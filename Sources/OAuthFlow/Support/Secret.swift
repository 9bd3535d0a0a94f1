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

/// Comparisons whose running time does not reveal where two values differ.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, comparing every byte of the longer one.
    public static func equals(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in equals(x, y) } }
    }

    private static func equals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        var difference = UInt8(truncatingIfNeeded: x.count ^ y.count) | (x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            let left = index < x.count ? x[index] : 0
            let right = index < y.count ? y[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
