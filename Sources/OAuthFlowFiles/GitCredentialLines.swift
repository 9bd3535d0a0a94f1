/// git's credential-helper protocol (gitcredentials(7), git-credential(1)): `key=value` lines.
public enum GitCredentialLines {
    /// The most of a request read (git sends a few hundred bytes).
    public static let maximumSize = 64 * 1024

    /// Why a request cannot be read.
    public struct Malformed: Error, Sendable, Hashable {
        public let message: String
    }

    /// The attributes up to a blank line or the end, by name (for repeated names, the last).
    ///
    /// - Throws: ``Malformed`` for a line without `=`, an empty name, a NUL inside a value, or more than 64 KiB.
    public static func parse(_ text: String) throws -> [String: String] {
        guard text.utf8.count <= maximumSize else { throw Malformed(message: "the credential request is larger than 64 KiB") }
        var attributes: [String: String] = [:]
        // Split on the byte: in a String, "\r\n" is one Character, which a split on "\n" would not cut.
        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let bytes = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw[...]
            if bytes.isEmpty { break }
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
                throw Malformed(message: "a credential attribute line has no `=`: git-credential(1) sends key=value lines")
            }
            let key = String(decoding: bytes[..<equals], as: UTF8.self)
            let value = bytes[bytes.index(after: equals)...]
            guard !key.isEmpty, !value.contains(0) else { throw Malformed(message: "a credential attribute is malformed") }
            attributes[key] = String(decoding: value, as: UTF8.self)
        }
        return attributes
    }

    /// The answer to `get`: `username`, `password` and, when the token's expiry is known, `password_expiry_utc`;
    /// nil when a value holds a line break or NUL, which the line format cannot carry.
    public static func answer(username: String, password: String, expiresAt: Int?) -> String? {
        // Bytes, not Characters: "\r\n" is one Character, which neither "\r" nor "\n" would match.
        for value in [username, password] where value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) {
            return nil
        }
        var text = "username=\(username)\npassword=\(password)\n"
        if let expiresAt { text += "password_expiry_utc=\(expiresAt)\n" }
        return text
    }
}
