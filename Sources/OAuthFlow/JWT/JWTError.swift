import Foundation

/// Why a compact JWS cannot be read (``CompactJWS``) or a provider's signing keys cannot be had (``SigningKeys``).
///
/// The JOSE layer's own failures, never shown to a host as they are: each caller states them in its own terms, with
/// the same code name and sentence (`IDTokenValidator` as an `IDTokenError`, `ProtectedResource` in a
/// `ProtectedResource.Denial`'s reason).
package struct JWTError: Error, MessageError, Hashable {
    package typealias Code = ErrorCode<JWTError>

    package let code: Code
    package let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == JWTError {
    /// Not three base64url parts, or the header or payload is not a JSON object a JOSE reader takes (too deep, a
    /// member repeated).
    package static let malformed = Self("malformed")
    /// The JWKS cannot be fetched or read.
    package static let keysUnavailable = Self("keys_unavailable")
}

extension JWTError: CodedError {}
