import Foundation
import OAuthFlowFiles

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

extension JSONValue {
    /// The value the one strict reader (``CompactJSON``) read, its numbers as `Double`s (the reader took only
    /// numbers a `Double` holds).
    package init(_ json: CompactJSON) {
        switch json {
        case let .object(members):
            var object = [String: JSONValue](minimumCapacity: members.count)
            for (name, member) in members { object[name] = JSONValue(member) }
            self = .object(object)
        case let .array(elements): self = .array(elements.map(JSONValue.init))
        case let .string(text): self = .string(text)
        case let .number(text): self = .number(Double(text) ?? .nan)
        case let .bool(flag): self = .bool(flag)
        case .null: self = .null
        }
    }

    /// The object `bytes` hold, read by the one strict reader (``CompactJSON``): a JOSE header or claims set, or a
    /// server's answer.
    ///
    /// - Throws: ``CompactJSON/Failure``; `notJSON` also for a JSON value that is not an object.
    package static func object(reading bytes: [UInt8], maximumDepth: Int) throws(CompactJSON.Failure) -> [String: JSONValue] {
        guard case let .object(members) = try CompactJSON.read(bytes, maximumDepth: maximumDepth) else { throw .notJSON }
        var object = [String: JSONValue](minimumCapacity: members.count)
        for (name, member) in members { object[name] = JSONValue(member) }
        return object
    }
}
