import Foundation
import OAuthFlow
import Testing

@testable import OAuthFlowMCPAuth

/// A provider drafted from an authorization server's metadata, with no descriptor pinning it, is held to the rules
/// `oauthflow lint` applies to a written one: an error refuses the server before anything is registered or sent.
@Suite struct MCPDraftLintTests {
    static func document(_ json: String) throws -> ServerDiscovery.AuthorizationServerDocument {
        let metadata = try JSONDecoder().decode(ServerMetadata.self, from: Data(json.utf8))
        let issuer = try #require(URL(string: metadata.issuer))
        return ServerDiscovery.AuthorizationServerDocument(
            issuer: issuer, url: issuer.appendingPathComponent(".well-known/oauth-authorization-server"), mode: .rfc8414,
            metadata: metadata, registrationEndpoint: nil, acceptsClientMetadataDocuments: false)
    }

    @Test func aHonestServerDraftsAProviderLintHoldsClean() throws {
        let server = try Self.document(
            #"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize","token_endpoint":"https://as.example/token","code_challenge_methods_supported":["S256"]}"#
        )
        let provider = try MCPAuthorization.provider(for: server, now: Date())
        #expect(provider.endpoints.token?.absoluteString == "https://as.example/token")
    }

    @Test func aDraftLintRefusesIsRefused() throws {
        // An issuer with a query (RFC 8414 §2 forbids one, and `iss` comparisons break on it), which a resource's
        // metadata can name and the server's own metadata repeat exactly: lint's issuer_no_query_or_fragment.
        let server = try Self.document(
            #"{"issuer":"https://as.example/?tenant=1","authorization_endpoint":"https://as.example/authorize","token_endpoint":"https://as.example/token","code_challenge_methods_supported":["S256"]}"#
        )
        let error = try #require(throws: MCPAuthorizationError.self) { _ = try MCPAuthorization.provider(for: server, now: Date()) }
        #expect(error.code == .unsupportedServer)
        #expect(error.description.contains("breaks lint rules: issuer_no_query_or_fragment"), "\(error)")
    }
}
