import Foundation
import OAuthFlowFiles

/// The one gate for the JSON a server sends: token, device, pushed-authorization, introspection, userinfo,
/// grant-management, registration and error answers, metadata, key sets and authorization details.
///
/// Every text is read by the one strict reader, ``CompactJSON``, before anything in it is believed. Text two readers
/// could read differently is refused (RFC 8259 §4, §8.1): text that is not UTF-8 (Foundation's decoder also reads
/// UTF-16 and UTF-32), an object that gives one member twice, names compared once their escapes are decoded
/// (`{"active":true,"\u0061ctive":false}`: readers differ on which wins), and nesting deeper than
/// ``maximumDepth``. A typed document (``decode(_:from:)``) is decoded only from text the reader took.
package enum ServerJSON {
    /// How many objects and arrays a server's JSON may nest.
    package static let maximumDepth = 64

    /// What was wrong with a server's JSON.
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The bytes are not UTF-8, or hold a NUL byte, which JSON text never does (RFC 8259 §8.1).
        case notUTF8
        /// An object gives this member twice.
        case repeated(String)
        /// Objects and arrays nest deeper than ``ServerJSON/maximumDepth``.
        case tooDeep
        /// A number no 64-bit float holds (a 5,000-digit `expires_in`, `1e999`, `2e-324`).
        case numberOutOfRange
        /// Not JSON, or not JSON of the kind asked for.
        case notJSON

        /// A phrase that follows "it", for an error.
        package var description: String {
            switch self {
            case .notUTF8: return "is not UTF-8 JSON (RFC 8259 §8.1)"
            case .repeated(let name): return "names `\(TerminalText.escaped(String(name.prefix(60))))` twice"
            case .tooDeep: return "nests deeper than \(ServerJSON.maximumDepth) levels"
            case .numberOutOfRange: return "holds a number beyond what a 64-bit float holds (RFC 8259 §6)"
            case .notJSON: return "is not JSON of the kind expected"
            }
        }

        /// Whether the text is JSON that two readers could read differently (every refusal but ``notJSON``).
        package var isDisagreement: Bool { self != .notJSON }
    }

    /// The value `bytes` hold, as the strict reader read it.
    ///
    /// - Parameter maximumDepth: How many objects and arrays may nest, the outermost counted as one.
    /// - Throws: ``Refusal``.
    package static func read(_ bytes: [UInt8], maximumDepth: Int = ServerJSON.maximumDepth) throws(Refusal) -> CompactJSON {
        guard !bytes.contains(0), bytes.withUnsafeBufferPointer({ UTF8Validation.isValid($0) }) else { throw .notUTF8 }
        do {
            return try CompactJSON.read(bytes, maximumDepth: maximumDepth)
        } catch {
            switch error {
            case .notJSON: throw .notJSON
            case .tooDeep: throw .tooDeep
            case .numberOutOfRange: throw .numberOutOfRange
            case .repeatedMember(let name): throw .repeated(name)
            }
        }
    }

    /// Why JSON text could be read two ways (``Refusal/isDisagreement``); nil for text the reader takes, and for
    /// text that is not JSON at all, which the caller's own reading then refuses with its own words.
    package static func disagreement(in bytes: [UInt8]) -> Refusal? {
        do {
            _ = try read(bytes)
            return nil
        } catch {
            return error.isDisagreement ? error : nil
        }
    }

    /// The JSON object `body` holds.
    ///
    /// - Throws: ``Refusal``.
    package static func object(_ body: Data) throws(Refusal) -> [String: JSONValue] {
        guard case let .object(members) = try value(body) else { throw .notJSON }
        return members
    }

    /// The JSON value `body` holds (an object, a list, or a scalar).
    ///
    /// - Throws: ``Refusal``.
    package static func value(_ body: Data) throws(Refusal) -> JSONValue {
        JSONValue(try read([UInt8](body)))
    }

    /// `body` decoded as `type`, once the strict reader took the text.
    ///
    /// - Throws: ``Refusal``.
    package static func decode<Document: Decodable>(_ type: Document.Type, from body: Data) throws(Refusal) -> Document {
        _ = try read([UInt8](body))
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw .notJSON
        }
    }
}
