import Foundation
import JWTKit

/// A request object's claims: the authorization parameters and the JWT's own claims, of any names.
struct RequestObjectClaims: JWTPayload {
    let members: [String: JSONValue]

    init(_ members: [String: JSONValue]) { self.members = members }

    init(from decoder: any Decoder) throws { members = try [String: JSONValue](from: decoder) }

    func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
