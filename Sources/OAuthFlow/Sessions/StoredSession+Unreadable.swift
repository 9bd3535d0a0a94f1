import Foundation

extension StoredSession {
    /// What `debugDescription` says of a token that is not printable ASCII.
    static let unprintableToken = "holds characters other than printable ASCII"

    /// Why `data` is not a readable session, from what ``decoded(from:)`` threw: `empty`, `invalid JSON`, a token that
    /// is not printable ASCII, or, for JSON of another shape, `not a session: expected …` with the member that is missing
    /// or of another type.
    package static func unreadableReason(_ data: Data, _ error: any Error) -> String {
        if data.isEmpty { return "empty" }
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else { return "invalid JSON" }
        let expected = "not a session: expected a JSON object with `formatVersion`, `key`, `clientID`, `variables`, `tokens` and `updatedAt`"
        guard let error = error as? DecodingError else { return expected }
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }.joined(separator: ".")
        }
        switch error {
        case let .dataCorrupted(context) where context.debugDescription == unprintableToken:
            return "its `\(path(context.codingPath))` \(unprintableToken) (RFC 6749 Appendix A), which no token has"
        case let .keyNotFound(key, context):
            return "\(expected); `\(path(context.codingPath + [key]))` is missing"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            return context.codingPath.isEmpty ? expected : "\(expected); `\(path(context.codingPath))` is of another type"
        @unknown default:
            return expected
        }
    }

    /// Refuses tokens that are not printable ASCII (RFC 6749 Appendix A.12, A.17; an ID token is a compact JWS).
    static func checkPrintable(_ set: TokenSet) throws {
        let tokens: [(String, Secret?)] = [("accessToken", set.accessToken), ("refreshToken", set.refreshToken), ("idToken", set.idToken)]
        for case let (name, token?) in tokens where !TokenResponseParser.isTokenText(token.value) {
            let path: [any CodingKey] = [SessionCodingKey("tokens"), SessionCodingKey(name)]
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: unprintableToken))
        }
    }
}

/// A member name in a ``DecodingError``'s path.
private struct SessionCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
