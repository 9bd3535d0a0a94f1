import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) with the S256 method.
///
/// The verifier is 32 bytes from the system's cryptographically secure random
/// generator, base64url-encoded to 43 characters; the challenge is
/// `BASE64URL(SHA256(ASCII(verifier)))`. `plain` is deliberately not offered
/// (RFC 9700 §2.1.1).
package struct PKCE: Sendable, Hashable, Codable {
    /// The `code_challenge_method` sent with every authorization request.
    package static let method = "S256"
    /// Characters RFC 7636 §4.1 allows in a verifier.
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// The secret `code_verifier`, sent only to the token endpoint.
    package let verifier: Secret
    /// The `code_challenge` sent in the authorization request.
    package let challenge: String

    /// A fresh verifier and its challenge.
    package static func generate() -> PKCE {
        let random = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // 32 random bytes encode to 43 unreserved characters, so this cannot fail.
        let verifier = Base64URL.encode(random)
        return PKCE(validVerifier: verifier)
    }

    /// Wraps an existing verifier.
    ///
    /// - Throws: ``FlowError`` when the verifier is not 43–128 unreserved characters (RFC 7636 §4.1).
    package init(verifier: String) throws {
        let bytes = Array(verifier.utf8)
        guard (43...128).contains(bytes.count), bytes.allSatisfy(Self.unreserved.contains) else {
            throw FlowError(.invalidVerifier, "a PKCE verifier must be 43 to 128 characters from A-Z a-z 0-9 - . _ ~")
        }
        self.init(validVerifier: verifier)
    }

    private init(validVerifier verifier: String) {
        self.verifier = Secret(verifier)
        self.challenge = Self.challenge(for: verifier)
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }
}
