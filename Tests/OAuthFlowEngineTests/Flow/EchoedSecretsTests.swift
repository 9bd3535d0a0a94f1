import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// A server's error text is quoted in errors, logs and on terminals: what the request sent (a token, a code, the
/// client's secret) never comes back through it.
@Suite struct EchoedSecretsTests {
    static let secret = "client-secret-never-shown-0123456789"
    static let refresh = "refresh-token-never-shown-abcdef"
    static let access = "access-token-never-shown-abcdef"

    static func client(_ answer: @escaping @Sendable (TransportRequest) -> TransportResponse) throws -> OAuthClient {
        let provider = try TestDescriptor(
            extra: "client_auth:\n  methods: [client_secret_basic]\n"
        ).with(endpoints: [("revocation", "https://auth.example.com/revoke"), ("userinfo", "https://auth.example.com/userinfo")]).provider()
        return OAuthClient(provider: provider,
            configuration: ClientConfiguration(
                clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: Secret(secret)), environment: OAuthEnvironment(transport: ScriptedTransport { request, _ in answer(request) }))
    }

    static func echo(status: Int, _ words: String) -> TransportResponse {
        let body = #"{"error":"invalid_request","error_description":"\#(words)"}"#
        return TransportResponse(
            status: status, headers: ["Content-Type": "application/json", "WWW-Authenticate": #"Bearer error_description="\#(words)""#],
            body: Data(body.utf8))
    }

    static let tokens = TokenSet(
        accessToken: Secret(access), tokenType: "Bearer", expiresAt: nil, refreshToken: Secret(refresh), idToken: nil, scopes: [],
        issuedAt: Date())

    static func expectClean(_ error: any Error, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let text = "\(error)"
        for value in [secret, refresh, access] {
            #expect(!text.contains(value), "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [400, 200])
    func aRefreshErrorEchoingTheRefreshTokenAndSecretCarriesNeither(status: Int) async throws {
        let client = try Self.client { _ in Self.echo(status: status, "bad token \(Self.refresh) for secret \(Self.secret)") }
        let error = await #expect(throws: (any Error).self) { _ = try await client.refresh(Self.tokens) }
        try Self.expectClean(#require(error))
        #expect("\(error.map { "\($0)" } ?? "")".contains("[redacted]"))
    }

    @Test func aRevocationErrorEchoingTheTokenCarriesNothing() async throws {
        let client = try Self.client { _ in Self.echo(status: 400, "cannot revoke \(Self.access)") }
        let error = await #expect(throws: (any Error).self) { try await client.revoke(Secret(Self.access), kind: .accessToken) }
        try Self.expectClean(#require(error))
    }

    /// A secret in standard base64 holds `/` and `+`: PHP's `json_encode` writes `\/`, .NET `\u002B`, so the text
    /// of the answer never holds the secret as sent, and its reader decodes it back. The Basic header's base64, echoed by
    /// an error page that shows the request, is the secret too.
    @Test(arguments: [#"Ab12\/Cd34\/Ef56+Gh78"#, #"Ab12/Cd34/Ef56\u002BGh78"#, #"\u0041b12\/Cd34/Ef56\u002bGh78"#])
    func aSecretEchoedBehindJSONEscapesIsBlankedToo(_ escaped: String) async throws {
        let secret = "Ab12/Cd34/Ef56+Gh78"
        let basic = Data("c:\(FormEncoding.encode(secret))".utf8).base64EncodedString()
        let provider = try TestDescriptor(extra: "client_auth:\n  methods: [client_secret_basic]\n").provider()
        let transport = ScriptedTransport { request, _ in
            #expect(request.headers["Authorization"] == "Basic \(basic)")
            return Self.echo(status: 401, "client secret \(escaped) is wrong; header was Basic \(basic)")
        }
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: Secret(secret)),
            environment: OAuthEnvironment(transport: transport))
        let error = await #expect(throws: (any Error).self) { _ = try await client.refresh(Self.tokens) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(!text.contains(secret) && !text.contains(basic) && !text.contains("Ef56+Gh78"), "\(text)")
        #expect(text.contains("[redacted]"), "\(text)")
    }

    @Test func aUserinfoErrorEchoingTheAccessTokenCarriesNothing() async throws {
        let client = try Self.client { _ in Self.echo(status: 401, "token \(Self.access) expired") }
        let error = await #expect(throws: (any Error).self) { _ = try await client.userInfo(Self.tokens) }
        try Self.expectClean(#require(error))
    }
}
