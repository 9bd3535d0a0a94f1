import Crypto
import Foundation

/// The keys that seal what a server keeps outside itself: sessions at rest (the PostgreSQL
/// store) and pending sign-ins in cookies (the web sign-in). One current key seals new
/// values; older ones only open.
///
/// To rotate, put the new key first and keep the old one in `previous` until nothing sealed with it is left.
public struct SessionKeyring: Sendable {
    /// One named 256-bit key.
    public struct Key: Sendable {
        public let id: String
        let key: SymmetricKey

        /// - Parameters:
        ///   - id: 1 to 64 characters of `A-Z a-z 0-9 . _ -`, unique in the keyring.
        ///   - key: 32 bytes, from a secret manager or `openssl rand 32`.
        public init(id: String, key: SymmetricKey) throws {
            guard Self.isValidID(id) else {
                throw SessionKeyringError("a key id must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-'")
            }
            guard key.bitCount == 256 else {
                throw SessionKeyringError("key \(id) has \(key.bitCount / 8) bytes; session keys must have 32")
            }
            self.id = id
            self.key = key
        }

        /// A key from its base64 text (standard or URL-safe alphabet), as a secret manager hands it out.
        public init(id: String, base64 text: String) throws {
            var normalized = text.trimmingCharacters(in: .whitespacesAndNewlines)
                .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            normalized += String(repeating: "=", count: (4 - normalized.count % 4) % 4)
            guard let bytes = Data(base64Encoded: normalized) else {
                throw SessionKeyringError("key \(id) is not base64")
            }
            try self.init(id: id, key: SymmetricKey(data: bytes))
        }

        static func isValidID(_ id: String) -> Bool {
            !id.isEmpty && id.utf8.count <= 64
                && id.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == 0x2E || byte == 0x5F || byte == 0x2D
                }
        }
    }

    /// The key new writes use.
    public let current: Key
    private let byID: [String: Key]

    /// - Parameters:
    ///   - current: Seals every new write.
    ///   - previous: Still open rows sealed before a rotation.
    public init(current: Key, previous: [Key] = []) throws {
        var byID: [String: Key] = [:]
        for key in [current] + previous {
            guard byID[key.id] == nil else { throw SessionKeyringError("key id \(key.id) appears twice in the keyring") }
            byID[key.id] = key
        }
        self.current = current
        self.byID = byID
    }

    /// The ids of every key, current first.
    public var keyIDs: [String] { [current.id] + byID.keys.filter { $0 != current.id }.sorted() }

    /// Seals `plaintext` under the current key; returns the key id and nonce‖ciphertext‖tag.
    package func seal(_ plaintext: Data, context: Data) throws -> (keyID: String, sealed: Data) {
        let box = try AES.GCM.seal(plaintext, using: current.key, authenticating: context)
        guard let combined = box.combined else { throw SessionKeyringError("AES-GCM gave no combined form") }
        return (current.id, combined)
    }

    /// Opens what ``seal(_:context:)`` made, with the key it names.
    package func open(_ sealed: Data, keyID: String, context: Data) throws -> Data {
        guard let key = byID[keyID] else {
            throw SessionKeyringError("sealed with key \(keyID), which is not in the keyring (it has \(keyIDs.joined(separator: ", ")))")
        }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key.key, authenticating: context)
        } catch {
            throw SessionKeyringError(
                "does not open with key \(keyID): it was altered, moved from another row, or sealed with another key of that id")
        }
    }
}
