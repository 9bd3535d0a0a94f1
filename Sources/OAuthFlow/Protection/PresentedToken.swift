/// The token of an `Authorization` header and its scheme (RFC 6750 §2.1, RFC 9449 §7.1).
struct PresentedToken {
    enum Scheme { case bearer, dpop }

    let scheme: Scheme
    let token: String

    init(_ headers: [String]) throws(ProtectedResource.Denial) {
        guard let header = headers.first else { throw ProtectedResource.Denial(.missingToken, "the request carries no access token") }
        guard headers.count == 1 else {
            throw ProtectedResource.Denial(.invalidRequest, "the request carries \(headers.count) Authorization headers")
        }
        guard header.utf8.count <= ProtectedResource.maximumTokenSize + 8 else {
            throw ProtectedResource.Denial(.invalidToken, "the Authorization header is longer than \(ProtectedResource.maximumTokenSize) bytes")
        }
        var text = header
        let parsed = text.withUTF8 { bytes in Self.tokenCharacters.withUnsafeBufferPointer { Self.parse(bytes, characters: $0) } }
        (scheme, token) = try parsed.get()
    }

    /// One forward pass over the header's bytes: the scheme, spaces, the token, then nothing but spaces.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, characters: UnsafeBufferPointer<Bool>) -> Result<
        (Scheme, String), ProtectedResource.Denial
    > {
        let space = UInt8(ascii: " ")
        var index = 0
        while index < bytes.count, bytes[index] != space { index += 1 }
        let scheme: Scheme
        if isName(bytes[..<index], "bearer") {
            scheme = .bearer
        } else if isName(bytes[..<index], "dpop") {
            scheme = .dpop
        } else {
            return .failure(ProtectedResource.Denial(.missingToken, "the request authenticates with another scheme than Bearer or DPoP"))
        }
        while index < bytes.count, bytes[index] == space { index += 1 }
        let tokenStart = index
        // RFC 6750 §2.1 b64token: letters, digits, `-._~+/`, then `=` padding only.
        while index < bytes.count, characters[Int(bytes[index])] { index += 1 }
        let bodyEnd = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        let tokenEnd = index
        while index < bytes.count, bytes[index] == space { index += 1 }
        guard tokenStart < bytes.count else {
            return .failure(ProtectedResource.Denial(.invalidRequest, "the Authorization header has a scheme and no token"))
        }
        guard index == bytes.count, bodyEnd > tokenStart else {
            return .failure(
                ProtectedResource.Denial(.invalidRequest, "the access token has characters a token cannot have (RFC 6750 §2.1), or there are two"))
        }
        return .success((scheme, String(decoding: UnsafeBufferPointer(rebasing: bytes[tokenStart..<tokenEnd]), as: UTF8.self)))
    }

    /// Whether `name` is `lowercased` in any mix of ASCII cases (an auth scheme is case-insensitive, RFC 9110 §11.1).
    private static func isName(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ lowercased: StaticString) -> Bool {
        guard name.count == lowercased.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)
        for (byte, wanted) in zip(name, expected) where (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte) != wanted {
            return false
        }
        return true
    }

    private static let tokenCharacters: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8 { table[Int(byte)] = true }
        return table
    }()
}
