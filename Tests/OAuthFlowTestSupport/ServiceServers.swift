import Foundation
import OAuthFlow
import Testing

/// A client registered at one of the service-token test servers, as its state file describes it.
public struct RegisteredClient: Decodable, Sendable {
    public let clientID: String
    public let authMethod: String
    public let clientSecret: String?
    public let signingAlg: String?
    public let privateKeyPEM: String?
    public let privateKeyJWK: String?
    public let kid: String?
    public let assertionAudience: String?
    public let certificatePEM: String?
    public let certificateKeyPEM: String?
    public let expiresIn: Int?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", authMethod = "auth_method", clientSecret = "client_secret", signingAlg = "signing_alg"
        case privateKeyPEM = "private_key_pem", privateKeyJWK = "private_key_jwk", kid, assertionAudience = "assertion_audience"
        case certificatePEM = "certificate_pem", certificateKeyPEM = "certificate_key_pem", expiresIn = "expires_in"
    }

    /// The client's configuration with the credential its method needs (files read now).
    public func configuration(method: ProviderDescriptor.ClientAuthMethod? = nil, jwk: Bool = false, trustRoots: String? = nil) throws -> ClientConfiguration {
        let chosen = try method ?? #require(ProviderDescriptor.ClientAuthMethod(rawValue: authMethod))
        var key: ClientConfiguration.SigningKey?
        var identity: TLSClientIdentity?
        if chosen == .privateKeyJWT {
            let path = try #require(jwk ? privateKeyJWK : privateKeyPEM)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            key = try ClientConfiguration.SigningKey(text: text, algorithm: signingAlg.flatMap(JWSAlgorithm.init(rawValue:)), keyID: jwk ? nil : kid)
        }
        if chosen.usesCertificate {
            identity = TLSClientIdentity(
                certificateChainPEM: try String(contentsOfFile: try #require(certificatePEM), encoding: .utf8),
                privateKeyPEM: Secret(try String(contentsOfFile: try #require(certificateKeyPEM), encoding: .utf8)), trustRootsPEM: trustRoots)
        }
        return .service(
            clientID: clientID, clientSecret: chosen.usesSecret ? clientSecret.map(Secret.init) : nil, authMethod: chosen, signingKey: key,
            tlsIdentity: identity)
    }
}

/// The Authlib server `scripts/servers.sh` starts (Tests/ServiceServer): client credentials, the JWT
/// bearer grant, JWT and mutual-TLS client authentication, a resource that says who a token is for.
public struct TestServiceServer: Decodable, Sendable {
    public let issuer: String
    public let tokenEndpoint: URL
    public let mtlsTokenEndpoint: URL
    public let caCertificate: String
    public let resource: URL
    public let stats: URL
    public let revokeAll: URL
    public let slow: URL
    public let clients: [String: RegisteredClient]
    public let jwtBearer: JWTBearer
    public let introspectionEndpoint: URL?
    public let jwksURI: URL?
    /// The `aud` of a JWT access token issued without `resource` or `audience`.
    public let defaultAudience: String?
    public let rotateKeys: URL?
    public let introspectionDown: URL?

    public struct JWTBearer: Decodable, Sendable {
        public let issuer: String
        public let privateKeyPEM: String
        public let kid: String?
        public let alg: String
        public let users: [String]
        public let client: String

        enum CodingKeys: String, CodingKey {
            case issuer, privateKeyPEM = "private_key_pem", kid, alg, users, client
        }
    }

    enum CodingKeys: String, CodingKey {
        case issuer, tokenEndpoint = "token_endpoint", mtlsTokenEndpoint = "mtls_token_endpoint", caCertificate = "ca_certificate"
        case resource, stats, revokeAll = "revoke_all", slow, clients, jwtBearer = "jwt_bearer"
        case introspectionEndpoint = "introspection_endpoint", jwksURI = "jwks_uri", defaultAudience = "default_audience"
        case rotateKeys = "rotate_keys", introspectionDown = "introspection_down"
    }

    public static let current: TestServiceServer? = load("OAUTHFLOW_TEST_SERVICE_AS")

    public static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    public static let skipReason: Comment = "needs the Authlib service-token server: run `bash scripts/test.sh`"

    public static func require() throws -> TestServiceServer {
        try #require(current, "OAUTHFLOW_TEST_SERVICE_AS is not set: the service-token server was not started (run `bash scripts/test.sh`)")
    }

    public func client(_ name: String) throws -> RegisteredClient {
        try #require(clients[name], "the service server has no client `\(name)`")
    }

    /// The CA that signed the TLS listener's certificate, PEM.
    public func trustRoots() throws -> String { try String(contentsOfFile: caCertificate, encoding: .utf8) }

    /// A descriptor for this server, discovering its endpoints (RFC 8414), as a newcomer would write it.
    public func descriptor(
        id: String = "service", grants: [String] = ["client_credentials"], methods: [String], audience: String? = nil, extra: String = ""
    ) -> TestDescriptor {
        var yaml = """
            discovery:
              mode: rfc8414
            grant_types: [\(grants.joined(separator: ", "))]
            client_auth:
              methods: [\(methods.joined(separator: ", "))]

            """
        if let audience { yaml += "  assertion_audience: \(audience)\n" }
        return TestDescriptor(id: id, protocol: .oauth2, issuer: issuer, endpoints: [], extra: yaml + extra)
    }

    /// How many token requests the server has seen for `clientID` (every grant), for before/after comparisons.
    public func tokenRequests(for clientID: String) async throws -> Int {
        let response = try await DefaultHTTPTransport().send(TransportRequest(method: .get, url: stats))
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let counts = try #require(object["token_requests"] as? [String: Int])
        return counts.filter { $0.key.hasPrefix(clientID + " ") }.map(\.value).reduce(0, +)
    }

    /// How many token requests named exactly `resources` for `clientID`: a test with a resource of its own counts
    /// only its own requests, whatever other tests do with the same client.
    public func tokenRequests(for clientID: String, resources: [String]) async throws -> Int {
        let response = try await DefaultHTTPTransport().send(TransportRequest(method: .get, url: stats))
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let counts = object["token_requests_by_resource"] as? [String: Int] ?? [:]
        let suffix = " " + resources.sorted().joined(separator: ",")
        return counts.filter { $0.key.hasPrefix(clientID + " ") && $0.key.hasSuffix(suffix) }.map(\.value).reduce(0, +)
    }

    /// Makes the tokens issued so far for `resource` inactive (a resource server then answers 401 `invalid_token`);
    /// other tests' tokens, for other resources, stay valid.
    public func revokeTokens(issuedFor resource: String) async throws {
        var components = try #require(URLComponents(url: revokeAll, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "resource", value: resource)]
        _ = try await DefaultHTTPTransport().send(TransportRequest(method: .post, url: try #require(components.url)))
    }

    /// How many introspection requests `clientID` has made, and how many times the JWKS was fetched.
    public func protectionCounts(for clientID: String) async throws -> (introspections: Int, jwksFetches: Int) {
        let response = try await DefaultHTTPTransport().send(TransportRequest(method: .get, url: stats))
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let introspections = (object["introspection_requests"] as? [String: Int])?[clientID] ?? 0
        return (introspections, object["jwks_requests"] as? Int ?? 0)
    }

    /// A POST to one of the server's test controls (`rotate_keys`, `introspection_down`), with a query.
    public func control(_ url: URL?, query: [String: String] = [:]) async throws {
        let control = try #require(url, "the service server has no such control")
        var components = try #require(URLComponents(url: control, resolvingAgainstBaseURL: false))
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) } }
        let response = try await DefaultHTTPTransport().send(TransportRequest(method: .post, url: try #require(components.url)))
        #expect(response.status == 200, "\(components.path): HTTP \(response.status)")
    }

    /// What the resource server says about `token`: its status and JSON answer.
    public func whoami(_ token: Secret) async throws -> (status: Int, body: [String: Any]) {
        let response = try await DefaultHTTPTransport().send(
            TransportRequest(method: .get, url: resource, headers: ["Authorization": "Bearer \(token.value)"]))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:])
    }

    static func load<T: Decodable>(_ variable: String) -> T? {
        guard let path = ProcessInfo.processInfo.environment[variable], let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }
}

/// The idpyoidc server `scripts/servers.sh` starts (Tests/ExchangeServer): token exchange (RFC 8693).
public struct TestExchangeServer: Decodable, Sendable {
    public let issuer: String
    public let tokenEndpoint: URL
    public let subjectTokenEndpoint: URL
    public let stats: URL
    public let audiences: [String]
    public let resources: [String]
    public let clients: [String: RegisteredClient]

    enum CodingKeys: String, CodingKey {
        case issuer, tokenEndpoint = "token_endpoint", subjectTokenEndpoint = "subject_token_endpoint", stats, audiences, resources, clients
    }

    public static let current: TestExchangeServer? = TestServiceServer.load("OAUTHFLOW_TEST_EXCHANGE_AS")

    public static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    public static let skipReason: Comment = "needs the idpyoidc token-exchange server: run `bash scripts/test.sh`"

    public static func require() throws -> TestExchangeServer {
        try #require(current, "OAUTHFLOW_TEST_EXCHANGE_AS is not set: the token-exchange server was not started (run `bash scripts/test.sh`)")
    }

    public func client(_ name: String) throws -> RegisteredClient {
        try #require(clients[name], "the exchange server has no client `\(name)`")
    }

    /// A descriptor for this server (OpenID discovery), token exchange declared.
    public func descriptor(methods: [String], audience: String = "token_endpoint") -> TestDescriptor {
        TestDescriptor(
            id: "exchange", protocol: .oauth2, issuer: issuer, endpoints: [],
            extra: """
                discovery:
                  mode: oidc
                grant_types: [urn:ietf:params:oauth:grant-type:token-exchange, client_credentials]
                client_auth:
                  methods: [\(methods.joined(separator: ", "))]
                  assertion_audience: \(audience)

                """)
    }

    /// A real access token the server issued to its subject client for `user`: something to exchange.
    public func subjectToken(user: String = "alice", scope: String? = nil) async throws -> Secret {
        var body = "user=\(user)"
        if let scope { body += "&scope=\(scope.replacingOccurrences(of: " ", with: "+"))" }
        let response = try await DefaultHTTPTransport().send(
            TransportRequest(
                method: .post, url: subjectTokenEndpoint, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8)))
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "subject token: HTTP \(response.status)")
        return Secret(try #require(object["access_token"] as? String))
    }
}
