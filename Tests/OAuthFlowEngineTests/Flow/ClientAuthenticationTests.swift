import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// The client chooses how it authenticates, within what the descriptor says the provider accepts.
@Suite struct ClientAuthenticationTests {
    typealias Method = ProviderDescriptor.ClientAuthMethod

    private func provider(_ clientAuth: String) throws -> Provider {
        try TestDescriptor(extra: "client_auth:\n  \(clientAuth)\n").provider()
    }

    private func choose(_ clientAuth: String, secret: Bool, requested: Method? = nil) throws -> Method {
        try ClientConfiguration(clientID: "c", redirectURI: URL(string: "http://127.0.0.1/cb")!, clientSecret: secret ? Secret("s") : nil,
                                authMethod: requested).authenticationMethod(for: provider(clientAuth))
    }

    @Test func oneDescriptorServesPublicAndConfidentialClients() throws {
        let both = "methods: [none, client_secret_post, client_secret_basic]"
        #expect(try choose(both, secret: false) == .none)
        #expect(try choose(both, secret: true) == .clientSecretPost)
        #expect(try choose(both, secret: true, requested: .clientSecretBasic) == .clientSecretBasic)
    }

    @Test(arguments: [
        ("method: none", true, nil as Method?, "takes public clients only"),
        ("methods: [client_secret_basic]", false, nil, "needs a client secret"),
        ("methods: [none, client_secret_basic]", true, .clientSecretPost, "does not accept client authentication `client_secret_post`"),
        ("methods: [none, client_secret_basic]", true, Method.none, "a client secret was given"),
        ("methods: [none, client_secret_basic]", false, .clientSecretBasic, "needs a client secret"),
    ])
    func impossibleCombinationsAreRefusedNeverPatchedOver(_ clientAuth: String, _ secret: Bool, _ requested: Method?, _ reason: String) throws {
        let error = try #require(throws: FlowError.self) { try choose(clientAuth, secret: secret, requested: requested) }
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.code == .clientAuthentication || error.code == .missingClientSecret)
    }

    @Test func aSecretIsNotSentWhenTheRequestWouldBeRefused() async throws {
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 200, body: Data(#"{"access_token":"a","token_type":"bearer"}"#.utf8)) }
        let client = OAuthClient(provider: try provider("method: none"), configuration: ClientConfiguration(
            clientID: "c", redirectURI: URL(string: "http://127.0.0.1/cb")!, clientSecret: Secret("s")), environment: OAuthEnvironment(transport: transport))
        let tokens = TokenSet(accessToken: Secret("old"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("r"), idToken: nil,
                              scopes: [], issuedAt: Date())
        await #expect(throws: FlowError.self) { try await client.refresh(tokens) }
        #expect(transport.count("/token") == 0)
    }
}
