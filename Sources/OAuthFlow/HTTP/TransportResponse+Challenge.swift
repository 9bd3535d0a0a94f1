import Foundation

extension TransportResponse {
    /// The challenges of the response's `WWW-Authenticate` header, in order (none without one).
    public var challenges: [Challenge] { header("www-authenticate").map(Challenge.parse) ?? [] }

    /// Whether the answer refuses the access token itself, so that a new one may help: a 401 whose challenge says
    /// `invalid_token` (RFC 6750 §3.1), or that names no error. A 401 asking for a step-up
    /// (`insufficient_user_authentication`, RFC 9470) or another error is the API's answer, which a refresh cannot change.
    package var refusesToken: Bool {
        guard status == 401 else { return false }
        let errors = challenges.filter { ["bearer", "dpop"].contains($0.scheme.lowercased()) }.compactMap(\.error)
        return errors.isEmpty || errors.contains("invalid_token")
    }

    /// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1), as a resource server sends it to
    /// say why it refused a token: `Bearer error="insufficient_scope", scope="notes:write"` (RFC 6750 §3),
    /// a `DPoP` challenge (RFC 9449 §7.1), and the `resource_metadata` of RFC 9728 §5.1.
    public struct Challenge: Sendable, Hashable {
        /// The scheme, as sent (compare it case-insensitively).
        public let scheme: String
        /// The auth-params, names lowercased, values unquoted; the first of a repeated name.
        public let parameters: [String: String]

        package init(scheme: String, parameters: [String: String]) {
            self.scheme = scheme
            self.parameters = parameters
        }

        /// The `error` parameter (`invalid_token`, `insufficient_scope`, …).
        public var error: String? { parameters["error"] }
        /// The scopes the `scope` parameter names.
        public var scopes: [String] { parameters["scope"].map { $0.split(separator: " ").map(String.init) } ?? [] }
        /// Where the resource's RFC 9728 metadata is.
        public var resourceMetadata: URL? { parameters["resource_metadata"].flatMap(URL.init(string:)) }

        /// The challenges of a `WWW-Authenticate` value, in order; text that is not a challenge is skipped.
        public static func parse(_ header: String) -> [Challenge] {
            var reader = Reader(Array(header.utf8))
            var challenges: [Challenge] = []
            while let scheme = reader.nextScheme() {
                var parameters: [String: String] = [:]
                while let (name, value) = reader.nextParameter() {
                    // RFC 9110 §11.2: a parameter's name is matched case-insensitively.
                    if parameters[name.lowercased()] == nil { parameters[name.lowercased()] = value }
                }
                challenges.append(Challenge(scheme: scheme, parameters: parameters))
            }
            return challenges
        }

        /// A tokenizer of the header's grammar: tokens, `=`, quoted strings, commas.
        private struct Reader {
            let bytes: [UInt8]
            var index = 0

            init(_ bytes: [UInt8]) { self.bytes = bytes }

            static func isTokenByte(_ byte: UInt8) -> Bool {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                default: "!#$%&'*+-.^_`|~/".utf8.contains(byte)
                }
            }

            mutating func skip(_ set: String) {
                while index < bytes.count, set.utf8.contains(bytes[index]) { index += 1 }
            }

            mutating func token() -> String? {
                let start = index
                while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
                return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
            }

            /// The next challenge's scheme, skipping anything that is not one.
            mutating func nextScheme() -> String? {
                while index < bytes.count {
                    skip(" \t,")
                    guard index < bytes.count else { return nil }
                    let start = index
                    if let scheme = token() {
                        // A token followed by `=` is a stray parameter (or token68), not a scheme.
                        if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                            index = start
                            _ = nextParameter()
                            continue
                        }
                        return scheme
                    }
                    if bytes[index] == UInt8(ascii: "\"") {
                        // A stray quoted string: skipped whole, escapes and all.
                        index += 1
                        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                    }
                    index += 1
                }
                return nil
            }

            /// The next `name=value` of the current challenge; nil at the next scheme or the end.
            mutating func nextParameter() -> (String, String)? {
                skip(" \t,")
                let start = index
                guard let name = token() else { return nil }
                skip(" \t")
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                    index = start  // the next challenge's scheme
                    return nil
                }
                index += 1
                skip(" \t")
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    index += 1
                    var value: [UInt8] = []
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                        value.append(bytes[index])
                        index += 1
                    }
                    index += 1
                    return (name.lowercased(), String(decoding: value, as: UTF8.self))
                }
                let valueStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: " ") { index += 1 }
                return (name.lowercased(), String(decoding: bytes[valueStart..<index], as: UTF8.self))
            }
        }
    }
}
