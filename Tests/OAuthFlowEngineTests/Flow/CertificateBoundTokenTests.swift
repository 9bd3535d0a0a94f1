import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// Certificate-bound access tokens on the client's side (RFC 8705 §3) and the mutual-TLS endpoint aliases (§5): which
/// requests present the client certificate (`TransportRequest.clientIdentity`), where they go, and that bound tokens are
/// never sent without their certificate.
@Suite struct CertificateBoundTokenTests {
    static let issuer = "https://auth.example.com"
    static let aliasHost = "https://mtls.auth.example.com"

    /// The fixture client certificate and its key.
    static func identity() throws -> TLSClientIdentity {
        let keys = repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys")
        return TLSClientIdentity(
            certificateChainPEM: try String(contentsOf: keys.appendingPathComponent("client.crt"), encoding: .utf8),
            privateKeyPEM: Secret(try String(contentsOf: keys.appendingPathComponent("client.key"), encoding: .utf8)))
    }

    /// Another certificate (any DER hashes to another thumbprint).
    static let otherIdentity = TLSClientIdentity(
        certificateChainPEM: "-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQ==\n-----END CERTIFICATE-----\n", privateKeyPEM: Secret("k"))

    /// RFC 8414 metadata with every endpoint, and the aliases of those RFC 8705 §5 names (`aliases: false` leaves them out).
    static func metadata(aliases: Bool = true) -> String {
        let names = [
            ("token_endpoint", "token"), ("revocation_endpoint", "revoke"), ("introspection_endpoint", "introspect"),
            ("userinfo_endpoint", "userinfo"), ("device_authorization_endpoint", "device"),
            ("pushed_authorization_request_endpoint", "par"),
        ]
        var members = names.map { #""\#($0.0)": "\#(issuer)/\#($0.1)""# }
        members.append(#""issuer": "\#(issuer)", "authorization_endpoint": "\#(issuer)/authorize""#)
        members.append(#""code_challenge_methods_supported": ["S256"]"#)
        if aliases {
            let entries = names.map { #""\#($0.0)": "\#(aliasHost)/\#($0.1)""# }
            members.append(#""mtls_endpoint_aliases": {\#(entries.joined(separator: ", "))}"#)
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// A provider at `issuer`, discovered from `metadata`, with `client_auth` methods `methods`, and the requests sent.
    struct Server {
        let client: OAuthClient
        let sent: Locked<[TransportRequest]>
        var requests: [TransportRequest] { sent.withLock { $0 } }

        /// The requests to `path` (any host), in order.
        func requests(to path: String) -> [TransportRequest] { requests.filter { $0.url.path == path } }
    }

    /// - Parameters:
    ///   - tokenAnswer: The token endpoint's answer (JSON).
    static func server(
        methods: String = "[tls_client_auth]", identity: TLSClientIdentity?, secret: Secret? = nil, aliases: Bool = true,
        tokenAnswer: String = #"{"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1"}"#,
        extra: String = "", grants: String = "authorization_code, refresh_token, client_credentials",
        resource: (@Sendable (TransportRequest) async throws -> TransportResponse)? = nil
    ) throws -> Server {
        let document = metadata(aliases: aliases)
        let sent = Locked<[TransportRequest]>([])
        let transport = ScriptedTransport { request, _ in
            sent.withLock { $0.append(request) }
            func json(_ text: String) -> TransportResponse {
                TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
            }
            switch request.url.path {
            case "/.well-known/oauth-authorization-server": return json(document)
            case "/token": return json(tokenAnswer)
            case "/userinfo": return json(#"{"sub": "user-1"}"#)
            case "/introspect": return json(#"{"active": true}"#)
            case "/revoke": return TransportResponse(status: 200)
            case "/par": return TransportResponse(status: 201, body: Data(#"{"request_uri": "urn:example:1", "expires_in": 60}"#.utf8))
            default: return try await resource?(request) ?? TransportResponse(status: 404)
            }
        }
        let provider = try TestDescriptor(
            issuer: issuer, endpoints: [],
            extra: "discovery:\n  mode: rfc8414\ngrant_types: [\(grants)]\nclient_auth:\n  methods: \(methods)\n"
                + extra
        ).provider()
        let configuration = ClientConfiguration(
            clientID: "bank-app", redirectURI: URL(string: "http://127.0.0.1/callback"), clientSecret: secret, tlsIdentity: identity)
        return Server(client: OAuthClient(provider: provider, configuration: configuration, environment: OAuthEnvironment(transport: transport)), sent: sent)
    }

    /// A JWT-shaped access token (unsigned: the client never checks it) whose `cnf.x5t#S256` is `thumbprint`.
    static func accessToken(boundTo thumbprint: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let header = Base64URL.encode(try encoder.encode(JSONValue.object(["alg": .string("ES256"), "typ": .string("at+jwt")])))
        let claims = Base64URL.encode(
            try encoder.encode(JSONValue.object(["sub": .string("user-1"), "cnf": .object(["x5t#S256": .string(thumbprint)])])))
        return header + "." + claims + "." + Base64URL.encode(Data(repeating: 7, count: 64))
    }

    // MARK: - Discovery

    @Test func everyAliasOfRFC8705IsDiscovered() async throws {
        let server = try Self.server(identity: nil)
        let endpoints = try await server.client.discoveredProvider().endpoints
        let alias = { (path: String) in URL(string: "\(Self.aliasHost)/\(path)") }
        #expect(endpoints.mtlsToken == alias("token"))
        #expect(endpoints.mtlsRevocation == alias("revoke"))
        #expect(endpoints.mtlsIntrospection == alias("introspect"))
        #expect(endpoints.mtlsUserinfo == alias("userinfo"))
        #expect(endpoints.mtlsDeviceAuthorization == alias("device"))
        #expect(endpoints.mtlsPushedAuthorization == alias("par"))
        #expect(endpoints.token == URL(string: "\(Self.issuer)/token"), "the published endpoints stay as they are")
        for (published, path) in [("token", "token"), ("revoke", "revoke"), ("userinfo", "userinfo"), ("par", "par")] {
            #expect(endpoints.mutualTLSAlias(of: try #require(URL(string: "\(Self.issuer)/\(published)"))) == alias(path))
        }
        #expect(endpoints.mutualTLSAlias(of: try #require(URL(string: "\(Self.issuer)/authorize"))) == nil, "the browser's endpoint has none")
    }

    @Test func anInsecureAliasFailsDiscovery() async throws {
        let document = #"{"issuer": "\#(Self.issuer)", "token_endpoint": "\#(Self.issuer)/token", "mtls_endpoint_aliases": {"userinfo_endpoint": "http://mtls.example.com/userinfo"}}"#
        let provider = try TestDescriptor(issuer: Self.issuer, endpoints: [], extra: "discovery:\n  mode: rfc8414\n").provider()
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc"), environment: OAuthEnvironment(transport: CannedTransport(body: document)))
        let error = await #expect(throws: DiscoveryError.self) { _ = try await client.discoveredProvider() }
        #expect(error?.message.contains("mtls_endpoint_aliases.userinfo_endpoint") == true, "\(String(describing: error))")
    }

    // MARK: - A client that authenticates with its certificate

    @Test func aTLSClientsTokensAreBoundAndEveryLaterRequestPresentsTheCertificateAtTheAlias() async throws {
        let identity = try Self.identity()
        let server = try Self.server(identity: identity) { _ in
            TransportResponse(status: 200, body: Data("{}".utf8))
        }
        let tokens = try await server.client.clientCredentialsToken()
        #expect(tokens.isCertificateBound)
        #expect(tokens.certificateThumbprint == identity.thumbprint)

        _ = try await server.client.userInfo(tokens)
        let refreshed = try await server.client.refresh(tokens)
        #expect(refreshed.certificateThumbprint == identity.thumbprint, "renewed over the same certificate, still bound")
        _ = try await server.client.introspect(tokens.accessToken)
        try await server.client.revoke(try #require(refreshed.refreshToken), kind: .refreshToken, certificateBound: true)
        let api = try #require(URL(string: "https://api.example.com/accounts"))
        _ = try await tokens.send(TransportRequest(method: .get, url: api), environment: server.client.environment, clientIdentity: identity)

        for path in ["/token", "/userinfo", "/introspect", "/revoke"] {
            let requests = server.requests(to: path)
            #expect(!requests.isEmpty, "\(path)")
            for request in requests {
                #expect(request.url.absoluteString == Self.aliasHost + path, "\(path) goes to its alias")
                #expect(request.clientIdentity == identity, "\(path) presents the certificate")
            }
        }
        #expect(server.requests(to: "/token").count == 2)
        let resource = try #require(server.requests(to: "/accounts").first)
        #expect(resource.clientIdentity == identity)
        #expect(resource.headers["Authorization"] == "Bearer at-1")
        #expect(server.requests(to: "/.well-known/oauth-authorization-server").allSatisfy { $0.clientIdentity == nil })
    }

    @Test func withoutAliasesTheCertificateGoesToThePublishedEndpoints() async throws {
        let identity = try Self.identity()
        let server = try Self.server(identity: identity, aliases: false)
        let tokens = try await server.client.clientCredentialsToken()
        _ = try await server.client.userInfo(tokens)
        for path in ["/token", "/userinfo"] {
            let request = try #require(server.requests(to: path).first)
            #expect(request.url.absoluteString == Self.issuer + path)
            #expect(request.clientIdentity == identity)
        }
    }

    @Test func aPushedRequestOfAFAPI2ClientWithACertificateGoesToThePushedRequestAlias() async throws {
        let identity = try Self.identity()
        let yaml = """
            schema_version: 1
            id: bank
            display_name: Bank
            protocol: oauth2
            issuer: \(Self.issuer)
            discovery:
              mode: rfc8414
            client_auth:
              methods: [tls_client_auth]
            security:
              profile: fapi2
              id_token_algs: [PS256, ES256]
              dpop: never

            """
        let provider = try #require(DescriptorDocument.parse(Data(yaml.utf8), path: "bank.yaml").descriptor).resolve()
        let document = Self.metadata()
        let sent = Locked<[TransportRequest]>([])
        let transport = ScriptedTransport { request, _ in
            sent.withLock { $0.append(request) }
            if request.url.path == "/par" {
                return TransportResponse(status: 201, body: Data(#"{"request_uri": "urn:example:1", "expires_in": 60}"#.utf8))
            }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(document.utf8))
        }
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "bank-app", redirectURI: URL(string: "http://127.0.0.1/callback"), tlsIdentity: identity),
            environment: OAuthEnvironment(transport: transport))
        let pending = try await client.startAuthorization()
        let pushed = try #require(sent.withLock { $0 }.first { $0.url.path == "/par" })
        #expect(pushed.url.absoluteString == Self.aliasHost + "/par")
        #expect(pushed.clientIdentity == identity)
        #expect(pending.url.absoluteString.hasPrefix(Self.issuer + "/authorize?"), "the browser goes to the published endpoint")
        #expect(pending.url.query?.contains("request_uri=urn") == true)
    }

    // MARK: - Tokens the answer binds

    @Test func anAnswerThatNamesTheCertificateBindsTokensOfAClientThatAuthenticatesOtherwise() async throws {
        let identity = try Self.identity()
        let token = try Self.accessToken(boundTo: try #require(identity.thumbprint))
        let server = try Self.server(
            methods: "[client_secret_basic]", identity: identity, secret: Secret("s3cret"),
            tokenAnswer: #"{"access_token": "\#(token)", "token_type": "Bearer", "refresh_token": "rt-1"}"#)
        let tokens = try await server.client.clientCredentialsToken()
        let first = try #require(server.requests(to: "/token").first)
        #expect(first.clientIdentity == nil, "a client_secret_basic client presents no certificate to get its first tokens")
        #expect(first.url.absoluteString == Self.issuer + "/token")
        #expect(tokens.certificateThumbprint == identity.thumbprint, "the access token's cnf binds them")

        _ = try await server.client.userInfo(tokens)
        _ = try await server.client.refresh(tokens)
        let userinfo = try #require(server.requests(to: "/userinfo").first)
        #expect(userinfo.url.absoluteString == Self.aliasHost + "/userinfo")
        #expect(userinfo.clientIdentity == identity)
        let refresh = try #require(server.requests(to: "/token").last)
        #expect(refresh.url.absoluteString == Self.aliasHost + "/token")
        #expect(refresh.clientIdentity == identity)
        #expect(refresh.headers["Authorization"]?.hasPrefix("Basic ") == true, "still authenticated as configured")
    }

    /// A client assertion addressed to the published token endpoint never goes to a mutual-TLS alias on another server,
    /// which could replay it at that endpoint (the audience injection of CVE-2025-27370); addressed to the issuer, it may.
    @Test func anAssertionForTheTokenEndpointIsNotSentToAnAliasOnAnotherServer() async throws {
        let identity = try Self.identity()
        let token = try Self.accessToken(boundTo: try #require(identity.thumbprint))
        let answer = #"{"access_token": "\#(token)", "token_type": "Bearer", "refresh_token": "rt-1"}"#
        let secret = Secret(String(repeating: "k", count: 40))
        let refused = try Self.server(
            methods: "[client_secret_jwt]", identity: identity, secret: secret, tokenAnswer: answer, extra: "  assertion_audience: token_endpoint\n")
        let tokens = try await refused.client.clientCredentialsToken()
        let error = await #expect(throws: FlowError.self) { _ = try await refused.client.refresh(tokens) }
        #expect(error?.code == .clientAuthentication)
        #expect(error?.message.contains("assertion_audience: issuer") == true)
        #expect(refused.requests.allSatisfy { !$0.url.absoluteString.hasPrefix(Self.aliasHost) })

        let allowed = try Self.server(methods: "[client_secret_jwt]", identity: identity, secret: secret, tokenAnswer: answer)
        _ = try await allowed.client.refresh(try await allowed.client.clientCredentialsToken())
        #expect(allowed.requests(to: "/token").last?.url.absoluteString == Self.aliasHost + "/token")
    }

    /// A JWT bearer assertion (RFC 7523 §3) addressed to the published token endpoint does not go to the alias on another
    /// server either; one addressed to the issuer does.
    @Test func aGrantAssertionForTheTokenEndpointIsNotSentToAnAliasOnAnotherServer() async throws {
        let identity = try Self.identity()
        let server = try Self.server(identity: identity, grants: "urn:ietf:params:oauth:grant-type:jwt-bearer")
        func assertion(audience: String) -> Secret {
            let now = Date().timeIntervalSince1970.rounded(.down)
            let claims: JSONValue = .object([
                "iss": .string("workload"), "sub": .string("workload"), "aud": .string(audience), "exp": .number(now + 300),
            ])
            let header = Base64URL.encode(Data(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
            let body = Base64URL.encode((try? JSONEncoder().encode(claims)) ?? Data())
            return Secret(header + "." + body + "." + Base64URL.encode(Data(repeating: 7, count: 64)))
        }
        let error = await #expect(throws: FlowError.self) {
            _ = try await server.client.jwtBearerToken(assertion: assertion(audience: Self.issuer + "/token"))
        }
        #expect(error?.code == .unusableAssertion && error?.message.contains("have the assertion name the issuer") == true)
        #expect(server.requests.allSatisfy { !$0.url.absoluteString.hasPrefix(Self.aliasHost) })
        _ = try await server.client.jwtBearerToken(assertion: assertion(audience: Self.issuer))
        #expect(server.requests(to: "/token").last?.url.absoluteString == Self.aliasHost + "/token")
    }

    @Test func aCnfMemberOfTheAnswerBindsToo() async throws {
        let server = try Self.server(
            methods: "[client_secret_basic]", identity: nil, secret: Secret("s3cret"),
            tokenAnswer: #"{"access_token": "at-1", "token_type": "Bearer", "cnf": {"x5t#S256": "abc"}}"#)
        let tokens = try await server.client.clientCredentialsToken()
        #expect(tokens.certificateThumbprint == "abc")
    }

    @Test func tokensOfAClientWithoutACertificateAreNotBoundAndShowNone() async throws {
        let server = try Self.server(methods: "[client_secret_basic]", identity: try Self.identity(), secret: Secret("s3cret")) { _ in
            TransportResponse(status: 200)
        }
        let tokens = try await server.client.clientCredentialsToken()
        #expect(!tokens.isCertificateBound)
        _ = try await server.client.userInfo(tokens)
        let api = try #require(URL(string: "https://api.example.com/accounts"))
        _ = try await tokens.send(TransportRequest(method: .get, url: api), environment: server.client.environment, clientIdentity: try Self.identity())
        #expect(server.requests.allSatisfy { $0.clientIdentity == nil })
        #expect(server.requests(to: "/userinfo").first?.url.absoluteString == Self.issuer + "/userinfo", "no alias without a certificate")
    }

    // MARK: - Never without the certificate

    @Test func aBoundTokenIsNeverSentWithoutItsCertificate() async throws {
        let identity = try Self.identity()
        var tokens = TokenSet(
            accessToken: Secret("at-1"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("rt-1"), idToken: nil, scopes: [],
            issuedAt: Date())
        tokens.certificateThumbprint = identity.thumbprint
        let server = try Self.server(methods: "[client_secret_basic]", identity: nil, secret: Secret("s3cret")) { _ in TransportResponse(status: 200) }
        let api = try #require(URL(string: "https://api.example.com/accounts"))
        let environment = server.client.environment

        var refusals: [FlowError?] = []
        refusals.append(await #expect(throws: FlowError.self) { _ = try await tokens.send(TransportRequest(method: .get, url: api), environment: environment) })
        refusals.append(
            await #expect(throws: FlowError.self) {
                _ = try await tokens.send(TransportRequest(method: .get, url: api), environment: environment, clientIdentity: Self.otherIdentity)
            })
        let local = try #require(URL(string: "http://127.0.0.1:9/accounts"))
        refusals.append(
            await #expect(throws: FlowError.self) {
                _ = try await tokens.send(TransportRequest(method: .get, url: local), environment: environment, clientIdentity: identity)
            })
        refusals.append(await #expect(throws: FlowError.self) { _ = try await server.client.userInfo(tokens) })
        refusals.append(await #expect(throws: FlowError.self) { _ = try await server.client.refresh(tokens) })
        refusals.append(
            await #expect(throws: FlowError.self) {
                try await server.client.revoke(Secret("rt-1"), kind: .refreshToken, certificateBound: true)
            })
        for refusal in refusals {
            #expect(refusal?.code == .certificateBinding, "\(String(describing: refusal))")
            #expect(refusal?.message.contains("at-1") == false && refusal?.message.contains("rt-1") == false)
        }
        let carrying = server.requests.filter { request in
            request.headers["Authorization"] != nil || String(decoding: request.body ?? Data(), as: UTF8.self).contains("t-1")
        }
        #expect(carrying.isEmpty, "nothing that carries a token was sent: \(carrying.map(\.url))")
    }

    @Test func boundTokensKeepTheirBindingInAStore() throws {
        var tokens = TokenSet(
            accessToken: Secret("at-1"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date())
        tokens.certificateThumbprint = "abc"
        let decoded = try JSONDecoder().decode(TokenSet.self, from: try JSONEncoder().encode(tokens))
        #expect(decoded.certificateThumbprint == "abc")
        let old = #"{"accessToken":"at","tokenType":"bearer","scopes":[],"issuedAt":0,"additionalFields":{}}"#
        let stored = try JSONDecoder().decode(TokenSet.self, from: Data(old.utf8))
        #expect(!stored.isCertificateBound, "a session stored before OAuthFlow kept the binding reads as unbound")
    }

    // MARK: - Both sides: the API's check of the same binding

    @Test func theAPIAcceptsTheTokenWithTheCertificateTheClientPresents() async throws {
        let identity = try Self.identity()
        let clock = StoppedClock()
        let keys = InProcessAuthorizationServer()
        let issuerKey = try await ProtectionKey.es256("es-1")
        keys.serveKeys([issuerKey])
        let api = try ProtectedResource(
            providers: [ProtectionSetup.provider(accessTokens: ["profile": "rfc9068"])], settings: ProtectionSetup.settings(),
            environment: OAuthEnvironment(transport: keys, clock: clock))
        let thumbprint = try #require(identity.thumbprint)
        let token = try issuerKey.sign(ProtectionToken.claims(now: clock.now(), ["cnf": .object(["x5t#S256": .string(thumbprint)])]))
        let answer = #"{"access_token": "\#(token)", "token_type": "Bearer", "expires_in": 600}"#
        let server = try Self.server(methods: "[client_secret_basic]", identity: identity, secret: Secret("s3cret"), tokenAnswer: answer) { request in
            // The API sees the certificate the connection presented (its DER), as a TLS terminator passes it on.
            let certificate = request.clientIdentity.flatMap { TLSClientIdentity.firstBlock(of: "CERTIFICATE", in: $0.certificateChainPEM) }
            let authorization = request.headers["Authorization"]
            let refused = await denial(api, ProtectedResource.Request(authorization: authorization, clientCertificate: certificate.map { Array($0) }))
            return TransportResponse(status: refused == nil ? 200 : 401)
        }
        let tokens = try await server.client.clientCredentialsToken()
        #expect(tokens.isCertificateBound)
        let url = try #require(URL(string: "https://api.example.com/accounts"))
        let accepted = try await tokens.send(TransportRequest(method: .get, url: url), environment: server.client.environment, clientIdentity: identity)
        #expect(accepted.status == 200)
        // What the client refuses to do, the API would refuse too: the same token without the certificate.
        var unbound = tokens
        unbound.certificateThumbprint = nil
        let bare = try await unbound.send(TransportRequest(method: .get, url: url), environment: server.client.environment)
        #expect(bare.status == 401)
    }
}
