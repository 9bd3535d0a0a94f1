import HTTPTypes
import Testing
@testable import OAuthFlowHummingbird

/// The Hummingbird middleware reads a DPoP proof from the `DPoP` header alone (RFC 9449 §4.1): never from
/// `Authorization`, whatever else the request carries, and by a name that cannot fail to be made.
@Suite struct DPoPHeaderTests {
    @Test func theProofIsReadFromTheDPoPHeaderOnly() throws {
        var headers = HTTPFields()
        headers[.authorization] = "DPoP eyJ-the-access-token"
        #expect(AccessTokenMiddleware<BasicAccessRequestContext>.dpopProofs(in: headers).isEmpty, "Authorization is never a proof")
        let name = try #require(HTTPField.Name("dpop"))
        headers.append(HTTPField(name: name, value: "proof-1"))
        headers.append(HTTPField(name: name, value: "proof-2"))
        #expect(AccessTokenMiddleware<BasicAccessRequestContext>.dpopProofs(in: headers) == ["proof-1", "proof-2"], "every value, so two proofs are refused")
    }
}
