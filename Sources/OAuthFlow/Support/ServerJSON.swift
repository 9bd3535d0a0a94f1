import Foundation

/// The one reader of the JSON a server sends: token, device, pushed-authorization, introspection, userinfo,
/// grant-management and error answers, metadata, key sets and registrations.
///
/// Text two readers could read differently is refused before anything in it is believed (RFC 8259 §4, §8.1): text
/// that is not UTF-8 (Foundation's decoder also reads UTF-16 and UTF-32, which a check of the bytes would not read
/// as it does), or an object that gives one member twice, names compared once their escapes are decoded
/// (`{"active":true,"\u0061ctive":false}`): readers differ on which of the two wins.
/// ``JSONMemberNames/disagreement(in:)`` finds both; this decodes only text it found neither in.
package enum ServerJSON {
    /// What was wrong with a server's JSON.
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not UTF-8, or a member given twice.
        case disagreement(JSONMemberNames.Disagreement)
        /// Not JSON of the kind asked for.
        case notJSON

        /// A phrase that follows "it", for an error.
        package var description: String {
            switch self {
            case .disagreement(let disagreement): return disagreement.description
            case .notJSON: return "is not JSON of the kind expected"
            }
        }
    }

    /// The JSON object `body` holds.
    ///
    /// - Throws: ``Refusal``.
    package static func object(_ body: Data) throws(Refusal) -> [String: JSONValue] {
        try decode([String: JSONValue].self, from: body)
    }

    /// The JSON value `body` holds (an object, a list, or a scalar).
    ///
    /// - Throws: ``Refusal``.
    package static func value(_ body: Data) throws(Refusal) -> JSONValue {
        try decode(JSONValue.self, from: body)
    }

    /// `body` decoded as `type`, once the text passed the checks above.
    ///
    /// - Throws: ``Refusal``.
    package static func decode<Document: Decodable>(_ type: Document.Type, from body: Data) throws(Refusal) -> Document {
        if let disagreement = JSONMemberNames.disagreement(in: [UInt8](body)) { throw .disagreement(disagreement) }
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw .notJSON
        }
    }
}
