import Crypto
import CryptoExtras
import Foundation
import JWTKit
import OAuthFlow

/// Claims of any shape, for jwt-kit to sign.
struct JSONClaims: JWTPayload {
    let members: [String: JSONValue]

    init(_ members: [String: JSONValue]) { self.members = members }

    init(from decoder: any Decoder) throws {
        members = try [String: JSONValue](from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try members.encode(to: encoder)
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
