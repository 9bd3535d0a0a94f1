import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// The one gate a client's credentials pass (`OAuthClient+CredentialBinding`): a client given for one authorization
/// server sends nothing to a provider whose issuer is another (a look-alike host, another port, a trailing slash, another
/// path), on every path that authenticates the client or presents an assertion; and a JWT bearer assertion is presented
/// only when its `aud`, `exp` and `nbf` say it is for this server now (RFC 7523 §3).
@Suite struct CredentialBindingTests {
    static let home = "https://auth.example.com"
    static let secret = "home-secret-0123456789abcdef"
    static let answer = #"{"access_token":"at-1","token_type":"Bearer","expires_in":300,"issued_token_type":"urn:ietf:params:oauth:token-type:access_token","active":true}"#

    /// A provider at `issuer` with every endpoint that authenticates the client, and the grants that present assertions.
    static func provider(issuer: String) throws -> Provider {
        let grants = [GrantType.authorizationCode, .refreshToken, .clientCredentials, .jwtBearer, .tokenExchange, .deviceCode]
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        return try TestDescriptor(
            issuer: issuer,
            endpoints: [
                ("authorization", "\(base)/authorize"), ("token", "\(base)/token"), ("revocation", "\(base)/revoke"),
                ("introspection", "\(base)/introspect"), ("device_authorization", "\(base)/device"),
                ("pushed_authorization", "\(base)/par"),
            ],
            extra: "grant_types: [\(grants.map(\.rawValue).joined(separator: ", "))]\nclient_auth:\n  methods: [client_secret_basic]\nauthorization:\n  pushed: always\n"
        ).provider()
    }

    /// A client whose secret was given for ``home``, at `issuer`, recording what it sends.
    static func client(at issuer: String, boundTo bound: String = home, clock: any DateClock = SystemDateClock()) throws -> (
        OAuthClient, RecordingTransport
    ) {
        let recording = RecordingTransport(CannedTransport(body: answer))
        var configuration = ClientConfiguration(
            clientID: "home-client", redirectURI: URL(string: "http://127.0.0.1/callback"), clientSecret: Secret(secret))
        configuration.authorizationServer = URL(string: bound)
        return (OAuthClient(provider: try provider(issuer: issuer), configuration: configuration, environment: OAuthEnvironment(transport: recording, clock: clock)), recording)
    }

    /// An unsigned JWT with `claims` (the client reads the claims; the signature is the server's to check).
    static func assertion(_ claims: [String: JSONValue]) throws -> Secret {
        func part(_ object: [String: JSONValue]) throws -> String {
            Base64URL.encode(try JSONEncoder().encode(object))
        }
        return Secret(try part(["alg": .string("ES256"), "typ": .string("JWT")]) + "." + part(claims) + ".c2lnbmF0dXJl")
    }

    static func validAssertion(audience: JSONValue = .string(home), now: Date = Date()) throws -> Secret {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        return try assertion(["iss": .string("https://platform.example"), "sub": .string("job"), "aud": audience, "exp": .number(seconds + 300)])
    }

    /// Every path that authenticates the client or presents an assertion, run once.
    static let paths = ["client_credentials", "jwt_bearer", "token_exchange", "refresh", "introspection", "revocation", "device", "pushed"]

    static func run(_ path: String, _ client: OAuthClient) async throws {
        let tokens = TokenSet(
            accessToken: Secret("at-0"), tokenType: "Bearer", expiresAt: nil, refreshToken: Secret("rt-0"), idToken: nil, scopes: [], issuedAt: Date())
        switch path {
        case "client_credentials": _ = try await client.clientCredentialsToken()
        case "jwt_bearer": _ = try await client.jwtBearerToken(assertion: try validAssertion(audience: .string(client.provider.issuer?.absoluteString ?? "")))
        case "token_exchange": _ = try await client.exchangeToken(OAuthClient.TokenExchangeRequest(subjectToken: Secret("subject-token-0123")))
        case "refresh": _ = try await client.refresh(tokens)
        case "introspection": _ = try await client.introspect(Secret("at-0123456"))
        case "revocation": try await client.revoke(Secret("rt-0123456"), kind: .refreshToken)
        case "device": _ = try await client.startDeviceAuthorization()
        default: _ = try await client.startAuthorization()
        }
    }

    /// The issuers a hostile server may stand behind: each is another server, compared exactly.
    static let otherServers = [
        "https://auth-example.com", "https://auth.example.com:8443", "https://auth.example.com/", "https://auth.example.com/tenant",
        "http://127.0.0.1:8080",
    ]

    @Test(arguments: otherServers)
    func nothingGoesToAnotherAuthorizationServer(issuer: String) async throws {
        for path in Self.paths {
            let (client, recording) = try Self.client(at: issuer)
            let error = await #expect(throws: FlowError.self, "\(path)") { try await Self.run(path, client) }
            #expect(error?.code == .wrongAuthorizationServer, "\(path): \(String(describing: error))")
            #expect(error?.message.contains(Self.home) == true && error?.message.contains(issuer) == true, "\(path)")
            #expect(error?.message.contains(Self.secret) == false)
            #expect(recording.requests.isEmpty, "\(path) sent \(recording.requests.map(\.url))")
        }
    }

    /// The same client at the server it was given for sends each request: the gate refuses another server, not all.
    @Test func theServerTheCredentialsWereGivenForGetsThem() async throws {
        for path in Self.paths {
            let (client, recording) = try Self.client(at: Self.home)
            try? await Self.run(path, client)
            #expect(!recording.requests.isEmpty, "\(path) sent nothing")
        }
        // A client given for no server in particular goes with the provider the host pairs it with, as before.
        let recording = RecordingTransport(CannedTransport(body: Self.answer))
        let unbound = OAuthClient(
            provider: try Self.provider(issuer: "https://auth-example.com"), configuration: .service(clientID: "c", clientSecret: Secret(Self.secret)),
            environment: OAuthEnvironment(transport: recording))
        _ = try await unbound.clientCredentialsToken()
        #expect(recording.requests.count == 1)
    }

    // MARK: - The endpoints a descriptor names under the issuer

    /// A client given for ``home`` whose provider names ``home`` as its issuer, asks for discovery and writes its token
    /// endpoint as `token`; the issuer's metadata names `https://tokens.example.net/token`. Records what it sends.
    static func client(tokenEndpoint token: String, bound: Bool = true) throws -> (OAuthClient, RecordingTransport) {
        let metadata =
            #"{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize","token_endpoint":"https://tokens.example.net/token","jwks_uri":"https://auth.example.com/jwks"}"#
        let recording = RecordingTransport(
            ScriptedTransport { request, _ in
                let body = request.url.path.hasSuffix("openid-configuration") ? metadata : answer
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            })
        let provider = try TestDescriptor(
            issuer: home, endpoints: [("authorization", "\(home)/authorize"), ("token", token)],
            extra: "discovery:\n  mode: oidc\ngrant_types: [authorization_code, client_credentials]\nclient_auth:\n  methods: [client_secret_basic]\n"
        ).provider()
        var configuration = ClientConfiguration.service(clientID: "home-client", clientSecret: Secret(secret))
        if bound { configuration.authorizationServer = URL(string: home) }
        return (OAuthClient(provider: provider, configuration: configuration, environment: OAuthEnvironment(transport: recording)), recording)
    }

    /// The issuer unchanged, its token endpoint written on another server (what a descriptor dropped in can say): the
    /// secret given for the issuer does not go there. The endpoint the issuer's metadata names, on another host than the
    /// issuer (Google's), gets it; a client given for no server goes where the descriptor says, as before.
    @Test func aTokenEndpointTheIssuerDoesNotNameNeverGetsTheBoundSecret() async throws {
        let (moved, movedRecording) = try Self.client(tokenEndpoint: "https://tokens-example.net/token")
        let error = await #expect(throws: FlowError.self) { _ = try await moved.clientCredentialsToken() }
        #expect(error?.code == .wrongAuthorizationServer, "\(String(describing: error))")
        #expect(error?.message.contains("https://tokens-example.net:443") == true && error?.message.contains(Self.secret) == false)
        #expect(!movedRecording.requests.contains { $0.url.host == "tokens-example.net" }, "nothing reached the other server")

        let (named, namedRecording) = try Self.client(tokenEndpoint: "https://tokens.example.net/token")
        _ = try await named.clientCredentialsToken()
        #expect(namedRecording.requests.contains { $0.url.absoluteString == "https://tokens.example.net/token" })

        let (unbound, unboundRecording) = try Self.client(tokenEndpoint: "https://tokens-example.net/token", bound: false)
        _ = try await unbound.clientCredentialsToken()
        #expect(unboundRecording.requests.contains { $0.url.host == "tokens-example.net" })
    }

    // MARK: - The assertion's claims (RFC 7523 §3)

    @Test(arguments: [
        ("aud elsewhere", "is for https://evil.example"), ("aud a look-alike", "is for https://auth-example.com"),
        ("aud with a trailing slash", "is for https://auth.example.com/"), ("no aud", "names no audience"),
        ("exp a string", "not a JSON number"), ("exp past", "expired at"), ("no exp", "has no expiry"),
        ("nbf future", "is not valid before"), ("nbf a string", "`nbf` that is not a JSON number"), ("not a JWT", "is not a JWT"),
    ])
    func anAssertionNotForThisServerNowIsNotPresented(_ kind: String, says: String) async throws {
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = ["iss": .string("https://platform.example"), "sub": .string("job"), "aud": .string(Self.home), "exp": .number(now + 300)]
        switch kind {
        case "aud elsewhere": claims["aud"] = .array([.string("https://evil.example")])
        case "aud a look-alike": claims["aud"] = .string("https://auth-example.com")
        case "aud with a trailing slash": claims["aud"] = .string(Self.home + "/")
        case "no aud": claims["aud"] = nil
        case "exp a string": claims["exp"] = .string(String(Int(now + 300)))
        case "exp past": claims["exp"] = .number(now - 1)
        case "no exp": claims["exp"] = nil
        case "nbf future": claims["nbf"] = .number(now + 600)
        case "nbf a string": claims["nbf"] = .string(String(Int(now - 10)))
        default: break
        }
        let assertion = kind == "not a JWT" ? Secret("not-a-jwt-0123456789") : try Self.assertion(claims)
        let (client, recording) = try Self.client(at: Self.home)
        let error = await #expect(throws: FlowError.self) { _ = try await client.jwtBearerToken(assertion: assertion) }
        #expect(error?.code == .unusableAssertion, "\(String(describing: error))")
        #expect(error?.message.contains(says) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(assertion.value) == false)
        #expect(recording.requests.isEmpty)
    }

    /// `aud` naming the issuer, the token endpoint, or the issuer among others (an array); an `nbf` within the minute of
    /// clock skew: presented.
    @Test(arguments: ["issuer", "token endpoint", "array", "nbf within the skew"])
    func anAssertionForThisServerIsPresented(_ kind: String) async throws {
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = ["sub": .string("job"), "aud": .string(Self.home), "exp": .number(now + 300)]
        switch kind {
        case "token endpoint": claims["aud"] = .string(Self.home + "/token")
        case "array": claims["aud"] = .array([.string("https://other.example"), .string(Self.home)])
        case "nbf within the skew": claims["nbf"] = .number(now + 30)
        default: break
        }
        let (client, recording) = try Self.client(at: Self.home)
        _ = try await client.jwtBearerToken(assertion: try Self.assertion(claims))
        #expect(recording.requests.count == 1)
        #expect(RevocationSettingsTests.form(recording.requests.first)["assertion"] != nil)
    }
}
