import Foundation

/// Any JSON value, for response fields OAuthFlow keeps without interpreting.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .bool(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// A number, or a string holding one (`"3600"`).
    public var numberValue: Double? {
        switch self {
        case let .number(value): return value
        case let .string(text): return Double(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// A finite JSON number, and nothing else: a NumericDate (RFC 7519 §2; RFC 7662 §2.2) is a
    /// number, never a string that reads as one.
    public var numericDate: Double? {
        if case let .number(value) = self, value.isFinite { return value }
        return nil
    }

    /// How many arrays and objects are nested here (a scalar is 0).
    public var depth: Int {
        switch self {
        case let .array(values): 1 + (values.map(\.depth).max() ?? 0)
        case let .object(values): 1 + (values.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }

    public var description: String {
        switch self {
        case let .string(value): return "\"\(value)\""
        case let .number(value): return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case let .bool(value): return String(value)
        case let .array(values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case let .object(values): return "{" + values.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        case .null: return "null"
        }
    }
}
