import Foundation

/// One entry of a rich authorization request (RFC 9396 §2): a JSON object whose `type` names what kind of
/// access it asks for (a payment, an account's data), with the members that kind defines.
///
/// ```swift
/// let payment = AuthorizationDetail(type: "payment_initiation", [
///     "actions": .array([.string("initiate")]),
///     "instructedAmount": .object(["currency": .string("EUR"), "amount": .string("123.50")]),
/// ])
/// ```
///
/// Numbers are read as `Double`: send amounts as strings, as RFC 9396's examples do.
public struct AuthorizationDetail: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `type`: the kind of authorization this entry describes (RFC 9396 §2).
    public let type: String
    /// Every member, `type` included, as it is sent or was granted.
    public let members: [String: JSONValue]

    /// An entry of `type` with `members` (a `type` among them is replaced by `type`).
    ///
    /// - Parameters:
    ///   - type: The kind of authorization, as the provider documents it.
    ///   - members: The entry's other members: `actions`, `locations`, `datatypes`, `identifier`, `privileges`
    ///     (RFC 9396 §2.2) or the type's own.
    public init(type: String, _ members: [String: JSONValue] = [:]) {
        self.type = type
        var all = members
        all["type"] = .string(type)
        self.members = all
    }

    /// A member by name.
    public subscript(member: String) -> JSONValue? { members[member] }

    /// `actions` (RFC 9396 §2.2): what may be done, as strings.
    public var actions: [String] { strings("actions") }
    /// `locations` (RFC 9396 §2.2): where the resource is, as URIs.
    public var locations: [String] { strings("locations") }
    /// `datatypes` (RFC 9396 §2.2): which kinds of data may be read.
    package var datatypes: [String] { strings("datatypes") }
    /// `identifier` (RFC 9396 §2.2): the one resource this entry is about.
    public var identifier: String? { members["identifier"]?.stringValue }

    private func strings(_ name: String) -> [String] {
        guard case let .array(values)? = members[name] else { return [] }
        return values.compactMap(\.stringValue)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let members = try container.decode([String: JSONValue].self)
        guard let type = members["type"]?.stringValue else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "an authorization detail has no string `type`")
        }
        self.type = type
        self.members = members
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(members)
    }

    public var description: String {
        let names = members.keys.filter { $0 != "type" }.sorted()
        return "\(TerminalText.escaped(String(type.prefix(100))))" + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))")
    }
}

extension AuthorizationDetail {
    /// The most entries a request or an answer may hold.
    package static let maximumCount = 32
    /// The most bytes the JSON of a list may take.
    public static let maximumSize = 16 * 1024
    /// The deepest an entry may nest arrays and objects (RFC 9396's examples nest three deep).
    public static let maximumDepth = 8
    /// The longest `type`, in bytes.
    package static let maximumTypeLength = 256

    /// Reads a list from its JSON text, as a host may keep it in a file or a setting.
    ///
    /// - Parameter json: A JSON array of objects, each with a string `type`.
    /// - Returns: The entries, in order.
    /// - Throws: ``FlowError`` `invalidAuthorizationDetails` for text that is not such an array, a member name an
    ///   object holds twice (readers differ on which wins), more than 32 entries, more than ``maximumSize`` bytes, or
    ///   nesting deeper than ``maximumDepth``.
    public static func list(json: String) throws -> [AuthorizationDetail] {
        try list(bytes: Array(json.utf8), what: "the authorization details")
    }

    /// Reads a list from JSON bytes, checked as ``list(json:)`` says; `what` names them in errors.
    static func list(bytes: [UInt8], what: String) throws -> [AuthorizationDetail] {
        guard bytes.count <= maximumSize else { throw refusal("\(what) take \(bytes.count) bytes; at most \(maximumSize) are read") }
        let value: JSONValue
        do {
            // The list and its objects are two levels above the details' own.
            value = JSONValue(try ServerJSON.read(bytes, maximumDepth: maximumDepth + 2))
        } catch {
            switch error {
            case .repeated(let name):
                throw refusal("\(what) give the member `\(TerminalText.escaped(String(name.prefix(60))))` twice in one object")
            case .notUTF8: throw refusal("\(what) are not UTF-8 JSON (RFC 8259 §8.1)")
            case .tooDeep: throw refusal("\(what) nest deeper than \(maximumDepth) levels")
            case .numberOutOfRange: throw refusal("\(what) hold a number beyond what a 64-bit float holds (RFC 8259 §6)")
            case .notJSON: throw refusal("\(what) are not JSON")
            }
        }
        return try list(value, what: what)
    }

    /// Reads a list from a decoded JSON value: a token answer's member, a token's claim.
    ///
    /// - Throws: ``FlowError`` `invalidAuthorizationDetails` for a value that is not an array of objects with a
    ///   non-empty string `type`, or one past the limits.
    static func list(_ value: JSONValue, what: String) throws -> [AuthorizationDetail] {
        guard case let .array(entries) = value else { throw refusal("\(what) are not a JSON array (RFC 9396 §2)") }
        var details: [AuthorizationDetail] = []
        for (index, entry) in entries.enumerated() {
            guard case let .object(members) = entry else { throw refusal("entry \(index + 1) of \(what) is not a JSON object") }
            guard let type = members["type"]?.stringValue else { throw refusal("entry \(index + 1) of \(what) has no string `type` (RFC 9396 §2)") }
            details.append(AuthorizationDetail(type: type, members))
        }
        try check(details, what: what)
        return details
    }

    /// Checks a list against the limits: its count, each `type`, the nesting and the size of its JSON.
    ///
    /// - Throws: ``FlowError`` `invalidAuthorizationDetails`.
    static func check(_ details: [AuthorizationDetail], what: String = "the authorization details") throws {
        guard details.count <= maximumCount else { throw refusal("\(what) hold \(details.count) entries; at most \(maximumCount) are taken") }
        for (index, detail) in details.enumerated() {
            let type = detail.type
            guard !type.isEmpty, type.utf8.count <= maximumTypeLength, type.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else {
                throw refusal(
                    "entry \(index + 1) of \(what) has an empty `type`, one longer than \(maximumTypeLength) bytes, or one with control characters")
            }
            guard JSONValue.object(detail.members).depth <= maximumDepth else {
                throw refusal("entry \(index + 1) of \(what) nests deeper than \(maximumDepth) levels")
            }
        }
        let size = encoded(details).utf8.count
        guard size <= maximumSize else { throw refusal("\(what) take \(size) bytes as JSON; at most \(maximumSize) are sent") }
    }

    /// The JSON text of a list, as the `authorization_details` parameter carries it: members sorted, slashes unescaped.
    static func encoded(_ details: [AuthorizationDetail]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(details)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    /// Refuses a list whose types `provider` does not declare: its descriptor's `authorization.details_types`, or else
    /// its discovery document's `authorization_details_types_supported`; any type when neither lists them.
    ///
    /// - Throws: ``FlowError`` `invalidAuthorizationDetails` naming the type and where the declared ones come from.
    static func check(_ details: [AuthorizationDetail], for provider: Provider) throws {
        try check(details)
        let declared: (types: [String], source: String)
        if let types = provider.policy.authorizationDetailsTypes {
            declared = (types, "its descriptor's `authorization.details_types`")
        } else if let types = provider.capabilities.authorizationDetailsTypes {
            declared = (types, "its discovery document's `authorization_details_types_supported`")
        } else {
            return
        }
        for detail in details where !declared.types.contains(detail.type) {
            throw refusal(
                "provider `\(provider.id)` does not take authorization details of type `\(TerminalText.escaped(String(detail.type.prefix(100))))`; \(declared.source) lists \(declared.types.isEmpty ? "none" : declared.types.joined(separator: ", "))"
            )
        }
    }

    private static func refusal(_ message: String) -> FlowError { FlowError(.invalidAuthorizationDetails, message) }
}
