import Foundation
import Logging
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// Broken and unusual token endpoint answers, which a real server will not produce on demand, and what a
/// simulated provider checks of what is sent.
@Suite struct TokenResponseTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// A session with a refresh token, for tests that only need something to refresh.
    let staleTokens = TokenSet(accessToken: Secret("old"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("rt"),
                               idToken: nil, scopes: [], issuedAt: Date(timeIntervalSince1970: 1_700_000_000))

    private func parse(_ body: String, status: Int = 200, format: ProviderDescriptor.TokenResponseFormat = .json,
                       previous: TokenSet? = nil) throws -> TokenSet {
        let response = TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        return try TokenResponseParser.tokenSet(from: response, format: format, separator: " ",
                                                requestedScopes: ["openid", "email"], previous: previous, now: now)
    }

    @Test func standardResponse() throws {
        let tokens = try parse(#"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","scope":"openid email","id_token":"it","extra":1}"#)
        #expect(tokens.accessToken.value == "at")
        #expect(tokens.tokenType == "bearer")
        #expect(tokens.expiresAt == now.addingTimeInterval(3600))
        #expect(tokens.refreshToken?.value == "rt")
        #expect(tokens.idToken?.value == "it")
        #expect(tokens.scopes == ["openid", "email"])
        #expect(tokens.additionalFields == ["extra": .number(1)])
    }

    @Test(arguments: ["bearer", "BEARER", "Bearer"])
    func tokenTypeIgnoresCase(_ type: String) throws {
        #expect(try parse(#"{"access_token":"at","token_type":"\#(type)"}"#).tokenType == "bearer")
    }

    @Test func expiresInAsAString() throws {
        #expect(try parse(#"{"access_token":"at","token_type":"bearer","expires_in":"7200"}"#).expiresAt == now.addingTimeInterval(7200))
    }

    /// A quoted lifetime is decimal digits only: Swift's own number reading takes hex (`0x10`, 16 s) and signs.
    @Test(arguments: [#""0x10""#, #"" 3600""#, #""+3600""#, #""3600 ""#, #""""#, #""1e3""#])
    func aLifetimeStringOtherThanDigitsIsRefused(_ expiresIn: String) throws {
        #expect(throws: FlowError.self) { try parse(#"{"access_token":"at","token_type":"bearer","expires_in":\#(expiresIn)}"#) }
    }

    /// An empty refresh or ID token is none: not stored, not sent back on the next refresh.
    @Test func anEmptyRefreshTokenIsNone() throws {
        let first = try parse(#"{"access_token":"at1","token_type":"bearer","refresh_token":"","id_token":""}"#)
        #expect(first.refreshToken == nil && first.idToken == nil)
        let refreshed = try parse(#"{"access_token":"at2","token_type":"bearer","refresh_token":""}"#, previous: staleTokens)
        #expect(refreshed.refreshToken?.value == "rt", "the old refresh token is kept")
    }

    /// A lifetime of 5,000 digits is JSON no 64-bit float holds: the error says so, not that the answer is not JSON.
    @Test func aLifetimeNoDoubleHoldsIsNamed() throws {
        let digits = String(repeating: "9", count: 5000)
        let error = try #require(throws: FlowError.self) {
            try parse(#"{"access_token":"at","token_type":"bearer","expires_in":\#(digits)}"#)
        }
        #expect(error.message.contains("holds a number beyond what a 64-bit float holds"), "\(error.message)")
        #expect(!error.message.contains("not a JSON object"), "\(error.message)")
    }

    @Test(arguments: ["1e308", "31536001", "\"99999999999999\""])
    func absurdLifetimesAreCutToOneYear(_ expiresIn: String) throws {
        let tokens = try parse(#"{"access_token":"at","token_type":"bearer","expires_in":\#(expiresIn)}"#)
        #expect(tokens.expiresAt == now.addingTimeInterval(365 * 24 * 3600))
    }

    @Test(arguments: [#""at\u001b[2J""#, #""at\nSigned in""#, #""caf\u00e9""#])
    func tokensMustBePrintableASCII(_ token: String) throws {
        #expect(throws: FlowError.self) { try parse(#"{"access_token":\#(token),"token_type":"bearer"}"#) }
        #expect(throws: FlowError.self) { try parse(#"{"access_token":"at","refresh_token":\#(token),"token_type":"bearer"}"#) }
    }

    /// Mailchimp answers `"expires_in": 0, "scope": null` for a token that does not expire: null is an absent
    /// member. A zero lifetime is RFC 6749's 0 seconds, spent at once, unless the descriptor says the provider means
    /// "no expiry" by it (`token_response.zero_expires_in: no_expiry`, as Mailchimp's does).
    @Test func nullScopeAndAZeroLifetimeStateNothing() throws {
        let tokens = try parse(#"{"access_token":"at","token_type":"bearer","expires_in":0,"scope":null}"#)
        #expect(tokens.expiresAt == now)
        let response = TransportResponse(
            status: 200, headers: ["Content-Type": "application/json"],
            body: Data(#"{"access_token":"at","token_type":"bearer","expires_in":0,"scope":null}"#.utf8))
        let lasting = try TokenResponseParser.tokenSet(
            from: response, format: .json, separator: " ", zeroExpiresIn: .noExpiry, requestedScopes: ["openid", "email"], previous: nil, now: now)
        #expect(lasting.expiresAt == nil)
        #expect(tokens.scopes == ["openid", "email"])
        #expect(try parse(#"{"access_token":"at","token_type":"bearer","expires_in":null}"#).expiresAt == nil)
        #expect(throws: FlowError.self) { try parse(#"{"access_token":"at","token_type":"bearer","expires_in":-1}"#) }
        #expect(throws: FlowError.self) { try parse(#"{"access_token":"at","token_type":"bearer","scope":7}"#) }
    }

    @Test func absentScopeMeansTheRequestedScopes() throws {
        #expect(try parse(#"{"access_token":"at","token_type":"bearer"}"#).scopes == ["openid", "email"])
    }

    @Test func refreshKeepsTheOldRefreshTokenWhenNotRotated() throws {
        let first = try parse(#"{"access_token":"at1","token_type":"bearer","refresh_token":"rt1","scope":"openid"}"#)
        let second = try parse(#"{"access_token":"at2","token_type":"bearer"}"#, previous: first)
        #expect(second.refreshToken?.value == "rt1")
        #expect(second.scopes == ["openid"])
        let rotated = try parse(#"{"access_token":"at3","token_type":"bearer","refresh_token":"rt2"}"#, previous: first)
        #expect(rotated.refreshToken?.value == "rt2")
    }

    @Test func errorBodiesAreTypedWithTheirStatus() throws {
        let error = try #require(throws: AuthorizationServerError.self) {
            try parse(#"{"error":"invalid_grant","error_description":"Invalid code"}"#, status: 400)
        }
        #expect(error.error == "invalid_grant")
        #expect(error.errorDescription == "Invalid code")
        #expect(error.httpStatus == 400)
    }

    @Test func errorInA200BodyIsStillAnError() throws {
        // GitHub answers 200 with an error for a bad code.
        let error = try #require(throws: AuthorizationServerError.self) {
            try parse("error=bad_verification_code&error_description=The+code+is+incorrect", format: .auto)
        }
        #expect(error.error == "bad_verification_code")
        #expect(error.httpStatus == 200)
    }

    @Test func formEncodedSuccessUnderAuto() throws {
        let tokens = try parse("access_token=gho_abc&scope=read%3Auser&token_type=bearer", format: .auto)
        #expect(tokens.accessToken.value == "gho_abc")
        #expect(tokens.scopes == ["read:user"])
    }

    @Test(arguments: [
        ("", 200, "empty body"),
        ("<html><body>502 Bad Gateway</body></html>", 502, "HTML page"),
        ("{\"access_token\": ", 200, "not a JSON object"),
        ("[1,2,3]", 200, "not a JSON object"),
        (#"{"token_type":"bearer"}"#, 200, "no `access_token`"),
        (#"{"access_token":"at"}"#, 200, "no `token_type`"),
        (#"{"access_token":"at","token_type":"mac"}"#, 200, "not supported"),
        (#"{"access_token":"at","token_type":"bearer","expires_in":"soon"}"#, 200, "expires_in"),
        (#"{"access_token":"at","token_type":"bearer"}"#, 500, "without an OAuth error"),
    ])
    func unusableResponsesAreClearErrors(body: String, status: Int, fragment: String) throws {
        let error = try #require(throws: FlowError.self) { try parse(body, status: status) }
        #expect(error.code == .invalidTokenResponse)
        #expect(error.message.contains(fragment), "\(error.message)")
    }

    @Test func plainHTTPToARemoteHostIsRefused() async throws {
        #expect(throws: ProviderError.self) { try TestDescriptor(id: "plain", issuer: "http://auth.example.com").provider() }
        // Refused when resolved; a provider made any other way is refused before anything is sent.
        var endpoints = try TestDescriptor(id: "plain").provider().endpoints
        endpoints.token = URL(string: "http://auth.example.com/token")
        let provider = try TestDescriptor(id: "plain").provider().with(endpoints: endpoints, discovered: true)
        let transport = RecordingTransport(CannedTransport(body: #"{"access_token":"at","token_type":"bearer"}"#))
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: "c", redirectURI: URL(string: "http://127.0.0.1:9/callback")!), environment: OAuthEnvironment(transport: transport))
        let tokens = staleTokens
        let error = try await #require(throws: FlowError.self) { try await client.refresh(tokens) }
        #expect(error.code == .insecureEndpoint)
        #expect(transport.requests.isEmpty)
    }

    @Test func basicCredentialsAreFormEncodedBeforeBase64() async throws {
        let simulated = try SimulatedProvider()
        let redirect = URL(string: "http://127.0.0.1:9/callback")!
        // The provider decodes Basic credentials as RFC 6749 §2.3.1 says: it takes them only when they were encoded so.
        await simulated.register(.confidential(id: "my client", secret: "p@ss:w rd+", redirectURIs: [redirect]))
        func client(_ transport: any HTTPTransport) throws -> OAuthClient {
            var environment = simulated.environment
            environment.transport = transport
            return OAuthClient(provider: try simulated.provider(), configuration: ClientConfiguration(
                clientID: "my client", redirectURI: redirect, clientSecret: Secret("p@ss:w rd+")), environment: environment)
        }
        let tokens = try await Simulated.signIn(try client(simulated.transport), at: simulated).tokens
        let transport = RecordingTransport(simulated.transport)
        _ = try await client(transport).refresh(tokens)
        let header = try #require(transport.requests.first?.headers["Authorization"])
        let decoded = String(decoding: try #require(Data(base64Encoded: String(header.dropFirst(6)))), as: UTF8.self)
        #expect(decoded == "my+client:p%40ss%3Aw+rd%2B")
        let body = String(decoding: transport.requests.first?.body ?? Data(), as: UTF8.self)
        #expect(!body.contains("client_secret"))
    }

    @Test(arguments: [#""error":"unsupported_grant_type""#, #""error":"invalid_request","error_description":"missing grant_type""#])
    func errorsOfAnUnreadableBodyNameTheEncodingSent(_ fields: String) async throws {
        let code = fields.contains("unsupported") ? "unsupported_grant_type" : "invalid_request"
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data("{\(fields)}".utf8))
        }
        let provider = try TestDescriptor().provider()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "c", redirectURI: URL(string: "http://127.0.0.1/cb")!), environment: OAuthEnvironment(transport: transport))
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.refresh(staleTokens) }
        #expect(error.error == code)
        #expect(error.description.contains("sent form-encoded (`token_request.body_encoding: form`)"), "\(error)")
        #expect(error.description.contains("set `body_encoding: json`"))
    }

    @Test func otherServerErrorsCarryNoEncodingHint() async throws {
        // A refresh token the provider never issued: it answers invalid_grant.
        let simulated = try SimulatedProvider()
        let client = try Simulated.appClient(simulated)
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.refresh(staleTokens) }
        #expect(error.error == "invalid_grant")
        #expect(error.hint == nil)
    }
}
