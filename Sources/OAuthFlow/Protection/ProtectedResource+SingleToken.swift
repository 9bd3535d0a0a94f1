import Foundation

extension ProtectedResource {
    /// Checks a token given alone, as `OAuth.verifyAccessToken` takes it (not in an `Authorization` header): at most
    /// ``maximumTokenSize`` bytes, and no header scheme in front of it, which a pasted header line brings along.
    ///
    /// - Throws: ``Denial`` `invalid_token` for a token that is too long; `invalid_request` for one that starts with
    ///   `Bearer ` or `DPoP `, saying to give the token alone.
    static func checkAlone(_ token: Secret) throws(Denial) {
        let text = token.value
        guard text.utf8.count <= maximumTokenSize else {
            throw Denial(.invalidToken, "the token is longer than \(maximumTokenSize) bytes")
        }
        // A token never holds a space (RFC 6750 §2.1 b64token): a first word that is a scheme is the header's, not the token's.
        if let space = text.firstIndex(where: { $0 == " " || $0 == "\t" }) {
            let word = text[..<space].lowercased()
            if word == "bearer" || word == "dpop" {
                throw Denial(
                    .invalidRequest,
                    "the token starts with `\(text[..<space]) `, the scheme of an Authorization header: give the token alone, without the scheme")
            }
        }
    }
}
