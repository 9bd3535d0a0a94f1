import Foundation
import OAuthFlow
import Testing

/// The idpyoidc server `scripts/servers.sh` starts (Tests/PARServer): pushed authorization requests
/// (RFC 9126), DPoP-bound tokens (RFC 9449), and a protected resource that verifies DPoP proofs.
public struct TestPARServer: Decodable, Sendable {
    public let issuer: String
    /// The protected resource's base: `hello`, `nonce/…` and `nonce-loop/…` below it.
    public let resource: URL
    public let clients: [String: Client]

    /// A client registered there: `confidential`, `public`, `par-required`, `short-par`, `dpop-nonce`,
    /// `dpop-nonce-loop`, `bearer`, and the FAPI 2.0 clients `fapi2` and `fapi2-message-signing`
    /// (`private_key_jwt`, with the P-256 key the server made for them).
    public struct Client: Decodable, Sendable {
        public let clientID: String
        public let clientSecret: String?
        public let authMethod: String
        /// The private key of a `private_key_jwt` client, PKCS #8 PEM.
        public let privateKeyPEM: String?
        /// The `kid` the server registered that key under.
        public let keyID: String?

        enum CodingKeys: String, CodingKey {
            case clientID = "client_id", clientSecret = "client_secret", authMethod = "auth_method"
            case privateKeyPEM = "private_key_pem", keyID = "key_id"
        }
    }

    public static let current: TestPARServer? = TestServiceServer.load("OAUTHFLOW_TEST_PAR_AS")
    public static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    public static let skipReason: Comment = "needs the idpyoidc PAR and DPoP server: run `bash scripts/test.sh`"

    public static func require() throws -> TestPARServer {
        try #require(current, "OAUTHFLOW_TEST_PAR_AS is not set: the PAR and DPoP server was not started (run `bash scripts/test.sh`)")
    }

    public func client(_ name: String) throws -> Client {
        try #require(clients[name], "the PAR server has no client `\(name)`")
    }

    /// A descriptor for this server, as a newcomer would write it: discovery, offline access (which idpyoidc
    /// grants only with `prompt=consent`, OpenID Connect Core §11), `pushed` when given, more `authorization`
    /// lines, and `security` lines.
    public func descriptor(
        id: String = "par", methods: [String] = ["client_secret_basic", "none"], pushed: String? = nil, authorization: [String] = [],
        security: [String] = [], accessTokens: [String] = []
    ) -> TestDescriptor {
        var extra = """
            discovery:
              mode: oidc
            client_auth:
              methods: [\(methods.joined(separator: ", "))]
            authorization:
              extra_params:
                prompt: consent

            """
        if let pushed { extra += "  pushed: \(pushed)\n" }
        extra += authorization.map { "  \($0)\n" }.joined()
        if !security.isEmpty { extra += "security:\n" + security.map { "  \($0)\n" }.joined() }
        if !accessTokens.isEmpty { extra += "access_tokens:\n" + accessTokens.map { "  \($0)\n" }.joined() }
        return TestDescriptor(id: id, protocol: .oidc, issuer: issuer, endpoints: [], scopes: ["openid", "profile", "offline_access"], extra: extra)
    }

    /// A URL of the protected resource.
    public func resource(_ path: String) -> URL { resource.appendingPathComponent(path) }

    /// The server's counters (`/test/stats`).
    public func stats() async throws -> [String: JSONValue] {
        let url = try #require(URL(string: issuer + "/test/stats"))
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: url))
        return try JSONDecoder().decode([String: JSONValue].self, from: response.body)
    }

    /// Every proof `jti` the server saw.
    public func proofIDs() async throws -> [String] {
        let url = try #require(URL(string: issuer + "/test/jtis"))
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: url))
        let value = try JSONDecoder().decode(JSONValue.self, from: response.body)
        if case let .array(items) = value { return items.compactMap(\.stringValue) }
        if case let .object(object) = value, case let .array(items)? = object["jtis"] { return items.compactMap(\.stringValue) }
        return []
    }
}
