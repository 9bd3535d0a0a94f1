import Foundation
import Testing

@testable import OAuthFlow

/// The grant management API's answer (FAPI Grant Management §6.4) as a hostile or broken server sends it: members of
/// the wrong shape are refused with a sentence, never taken half-read.
@Suite struct ManagedGrantTests {
    static func answer(_ json: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
    }

    @Test func aGrantIsRead() throws {
        let grant = try ManagedGrant(
            id: "g-1",
            answer: Self.answer(
                #"{"scopes":[{"scope":"openid accounts","resource":["https://api.example"]},{"scope":"accounts payments","resource":"https://pay.example"}],"claims":["email"],"authorization_details":[{"type":"payment_initiation"}]}"#
            ))
        #expect(grant.scopes == ["openid", "accounts", "payments"])
        #expect(grant.resources == ["https://api.example", "https://pay.example"])
        #expect(grant.claims == ["email"] && grant.authorizationDetails.map(\.type) == ["payment_initiation"])
    }

    @Test(arguments: [
        #"{"scopes":"openid"}"#, #"{"scopes":[{"resource":"x"}]}"#, #"{"scopes":[42]}"#, #"{"claims":"email"}"#,
        #"{"claims":[1,2]}"#, #"{"authorization_details":[{"no_type":1}]}"#, #"{"authorization_details":"x"}"#,
    ])
    func aMemberOfTheWrongShapeIsRefused(_ json: String) throws {
        let error = try #require(throws: FlowError.self) { _ = try ManagedGrant(id: "g\u{1B}[31m", answer: Self.answer(json)) }
        #expect(error.code == .grantManagement)
        #expect(!error.message.contains("\u{1B}"), "the grant_id is escaped in the sentence")
    }
}
