import JWTKit

/// A JWT's claims of any names, as the JSON object they are.
struct JSONClaims: JWTPayload {
    let members: [String: JSONValue]

    init(_ members: [String: JSONValue]) { self.members = members }

    init(from decoder: any Decoder) throws { members = try [String: JSONValue](from: decoder) }

    func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
