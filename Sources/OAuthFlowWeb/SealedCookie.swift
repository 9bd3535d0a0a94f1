import Crypto
import Foundation
import OAuthFlow

/// A record sealed into a cookie value: `v1.KEYID.SEALED`, AES-256-GCM (`SessionKeyring`) over its JSON, with
/// its purpose and the cookie's name authenticated alongside. A value edited, cut, sealed with an unknown key,
/// or moved to another cookie name or purpose does not open.
enum SealedCookie {
    static let version = "v1"
    /// Cookies have a 4 KiB limit in browsers; the sealed records are far below.
    static let maximumLength = 3800

    /// `prefix` and 16 hex digits of the SHA-256 of `state`: flows in several tabs do not overwrite each
    /// other, and a return finds its own cookie from the `state` the provider hands back.
    static func name(prefix: String, state: String) -> String {
        prefix + Hexadecimal.lowercase(SHA256.hash(data: Data(state.utf8)).prefix(8))
    }

    private static func context(_ purpose: String, _ name: String) -> Data {
        Data("oauthflow-\(purpose)-v1\u{0}\(name)".utf8)
    }

    /// The sealed value; nil when it would be longer than ``maximumLength`` (a browser would drop it silently).
    static func seal<Record: Encodable>(_ record: Record, name: String, purpose: String, keyring: SessionKeyring) throws -> String? {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let (keyID, sealed) = try keyring.seal(try encoder.encode(record), context: context(purpose, name))
        let value = "\(version).\(keyID).\(Base64URL.encode(sealed))"
        return value.utf8.count <= maximumLength ? value : nil
    }

    /// - Throws: ``WebSignInError`` `tampered` when `value` does not open or decode.
    static func open<Record: Decodable>(
        _ value: String, name: String, purpose: String, keyring: SessionKeyring, what: String
    ) throws -> Record {
        let parts = value.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard value.utf8.count <= maximumLength, parts.count == 3, parts[0] == Substring(version),
            let sealed = Base64URL.decode(String(parts[2]))
        else {
            throw WebSignInError(.tampered, "the \(what) cookie \(name) is not one this server wrote")
        }
        let plaintext: Data
        do {
            plaintext = try keyring.open(sealed, keyID: String(parts[1]), context: context(purpose, name))
        } catch {
            throw WebSignInError(.tampered, "the \(what) cookie \(name) \(error)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let opened = try? decoder.decode(Record.self, from: plaintext) else {
            throw WebSignInError(.tampered, "the \(what) cookie \(name) opened but holds no \(what)")
        }
        return opened
    }
}
