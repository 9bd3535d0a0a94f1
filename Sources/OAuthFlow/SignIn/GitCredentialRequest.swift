import Foundation
import OAuthFlowFiles

/// git's credential-helper protocol (gitcredentials(7), git-credential(1)): `key=value` lines.
package struct GitCredentialRequest: Sendable, Hashable {
    /// Every attribute git sent, by name (for repeated names, the last).
    public let attributes: [String: String]

    public var protocolName: String? { attributes["protocol"] }
    public var host: String? { attributes["host"] }
    /// Sent only when `credential.useHttpPath` is set.
    public var path: String? { attributes["path"] }

    /// Reads the attributes up to a blank line or the end.
    ///
    /// - Throws: ``CredentialError`` for a line without `=`, a NUL or line break inside a value,
    ///   or more than 64 KiB (git sends a few hundred bytes).
    public init(parsing text: String) throws {
        do {
            attributes = try GitCredentialLines.parse(text)
        } catch let error as GitCredentialLines.Malformed {
            throw CredentialError(error.message)
        }
    }

    /// The answer to `get`: `username`, `password` and, when the token's expiry is known, `password_expiry_utc`.
    ///
    /// - Throws: ``CredentialError`` when a value would break the line format.
    public static func answer(username: String, password: Secret, expiresAt: Date?) throws -> String {
        guard
            let text = GitCredentialLines.answer(
                username: username, password: password.value, expiresAt: expiresAt.map { Int($0.timeIntervalSince1970) })
        else {
            throw CredentialError("a credential value holds a line break or NUL, which git's protocol cannot carry")
        }
        return text
    }
}
