import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// The `body_encoding` hint is given only when the token endpoint's answer points at the encoding;
/// a refused refresh points to signing in again instead (issue 21, item 24).
@Suite struct EncodingHintTests {
    let staleTokens = TokenSet(accessToken: Secret("old"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("rt"),
                               idToken: nil, scopes: [], issuedAt: Date(timeIntervalSince1970: 1_700_000_000))

    private func client(answering body: String) throws -> OAuthClient {
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let provider = try TestDescriptor().provider()
        return OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "c", redirectURI: URL(string: "http://127.0.0.1/cb")!), environment: OAuthEnvironment(transport: transport))
    }

    @Test(arguments: ["refresh token inactive", "Token is not active", "refresh token not found"])
    func aRefusedRefreshPointsToSigningInAgainNotToTheEncoding(_ description: String) async throws {
        let client = try client(answering: #"{"error":"invalid_request","error_description":"\#(description)"}"#)
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.refresh(staleTokens) }
        #expect(!error.description.contains("body_encoding"), "\(error)")
        #expect(error.hint?.contains("sign in again") == true, "\(error)")
    }

    @Test(arguments: ["Missing required parameter: grant_type", "client_id is required", "The grant type is missing"])
    func anInvalidRequestNamingAMissingParameterThatWasSentGetsTheHint(_ description: String) async throws {
        let client = try client(answering: #"{"error":"invalid_request","error_description":"\#(description)"}"#)
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.refresh(staleTokens) }
        #expect(error.description.contains("set `body_encoding: json`"), "\(error)")
    }

    @Test func aMissingCodeInTheCodeExchangeGetsTheHint() async throws {
        let client = try client(answering: #"{"error":"invalid_request","error_description":"Missing parameter: code"}"#)
        let pending = try await client.startAuthorization()
        let callback = try #require(URL(string: "http://127.0.0.1/cb?code=abc&state=\(pending.state.value)"))
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await client.finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(error.description.contains("set `body_encoding: json`"), "\(error)")
    }

    @Test func anInvalidRequestAboutSomethingElseInTheCodeExchangeGetsNoHint() async throws {
        // `prompt` was never sent to the token endpoint: the encoding is not the cause.
        let client = try client(answering: #"{"error":"invalid_request","error_description":"prompt is required"}"#)
        let pending = try await client.startAuthorization()
        let callback = try #require(URL(string: "http://127.0.0.1/cb?code=abc&state=\(pending.state.value)"))
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await client.finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(error.hint == nil, "\(error)")
    }

    @Test func unsupportedGrantTypeAlwaysGetsTheHint() async throws {
        let client = try client(answering: #"{"error":"unsupported_grant_type"}"#)
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.refresh(staleTokens) }
        #expect(error.description.contains("sent form-encoded (`token_request.body_encoding: form`)"), "\(error)")
    }
}
