import Foundation
import Testing

@testable import OAuthFlow

/// Every error type OAuthFlow throws gives its own sentence as `localizedDescription`, which hosts and libraries that
/// show errors (the MCP SDK's transport) read; before, it said only "The operation could not be completed".
@Suite struct LocalizedErrorTests {
    @Test func theLocalizedDescriptionIsTheErrorsOwnSentence() throws {
        let url = try #require(URL(string: "https://example.com/token"))
        let errors: [any Error & CustomStringConvertible] = [
            FlowError(.grantManagement, "these tokens name no grant"),
            ClientSettingsError(.missingClientID, "no client id for google"),
            DiscoveryError(.issuerMismatch, "the document names another issuer"),
            IDTokenError(.subjectMismatch, "userinfo is about another subject"),
            TokenStoreError(.io, "the store cannot be written"),
            TransportError(url: url, message: "no complete answer within 5.0 s"),
        ]
        for error in errors {
            #expect(error.localizedDescription == error.description, "\(type(of: error))")
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
    }
}
