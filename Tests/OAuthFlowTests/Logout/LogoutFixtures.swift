import Foundation
import Crypto
import JWTKit
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// A provider with a JWKS and a revocation endpoint on a scripted transport, its signing key, and logout
/// tokens signed with it (or made by hand, for the hostile ones).
struct LogoutFixture: Sendable {
    static let issuer = "https://op.example.com"
    static let clientID = "web-client"
    let now = Date(timeIntervalSince1970: 1_900_000_000)
    let key = ES256PrivateKey()
    let transport: ScriptedTransport
    let provider: Provider
    let client: OAuthClient
    /// The refresh tokens the revocation endpoint was sent.
    let revoked = Locked<[String]>([])

    init(extra: String = "") throws {
        let parameters = try #require(key.parameters)
        let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","kid":"k1","alg":"ES256","use":"sig"}]}"#
        let revoked = self.revoked
        transport = ScriptedTransport { request, _ in
            if request.url.path == "/revoke" {
                let token = FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)).first { $0.0 == "token" }?.1
                revoked.withLock { $0.append(token ?? "") }
                return TransportResponse(status: 200, headers: [:], body: Data())
            }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(jwks.utf8))
        }
        provider = try TestDescriptor(protocol: .oidc, issuer: Self.issuer, extra: "client_auth:\n  methods: [client_secret_basic]\n" + extra)
            .with(endpoints: [
                ("jwks", "\(Self.issuer)/jwks"), ("revocation", "\(Self.issuer)/revoke"), ("end_session", "\(Self.issuer)/logout"),
            ]).provider()
        client = OAuthClient(provider: provider,
            configuration: ClientConfiguration(
                clientID: Self.clientID, redirectURI: URL(string: "https://app.example.com/auth/example/callback")!,
                clientSecret: Secret("web-secret")), environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: now)))
    }

    /// The claims of a valid logout token for `sid` and `sub`.
    func claims(sid: String? = "sid-1", sub: String? = "user-1", jti: String = UUID().uuidString) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "aud": .string(Self.clientID), "iat": .number(now.timeIntervalSince1970 - 5),
            "exp": .number(now.timeIntervalSince1970 + 120), "jti": .string(jti),
            "events": .object([IDTokenValidator.backChannelLogoutEvent: .object([:])]),
        ]
        if let sid { claims["sid"] = .string(sid) }
        if let sub { claims["sub"] = .string(sub) }
        return claims
    }

    /// `claims` signed with the provider's key (or `key`), under `header` (`alg`, `kid` and `typ: logout+jwt` by default).
    func sign(_ claims: [String: JSONValue], header: [String: JSONValue]? = nil, with other: ES256PrivateKey? = nil) throws -> String {
        let header = header ?? ["alg": .string("ES256"), "kid": .string("k1"), "typ": .string("logout+jwt")]
        let input = try Self.part(header) + "." + Self.part(claims)
        let signature = try (other ?? key).signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    static func part(_ object: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode(try encoder.encode(JSONValue.object(object)))
    }

    /// A stored session of the provider, belonging to `sid` and `sub`.
    func session(_ account: String, sid: String?, sub: String = "user-1", refresh: String? = nil) -> StoredSession {
        StoredSession(
            key: SessionKey(providerID: provider.id, account: account), variables: [:], clientID: Self.clientID,
            redirectURI: URL(string: "https://app.example.com/auth/example/callback")!,
            tokens: TokenSet(
                accessToken: Secret("access-\(account)"), tokenType: "Bearer", expiresAt: now.addingTimeInterval(3600),
                refreshToken: Secret(refresh ?? "refresh-\(account)"), idToken: nil, scopes: ["openid"], issuedAt: now),
            updatedAt: now, providerSession: ProviderSession(issuer: Self.issuer, subject: sub, sessionID: sid))
    }

    /// A form body carrying `token`.
    static func body(_ token: String) -> Data { Data(("logout_token=" + FormEncoding.encode(token)).utf8) }
}

extension ES256PrivateKey {
    /// A raw ES256 signature (r || s) with swift-crypto, for tokens the tests shape by hand.
    func signature(for data: Data) throws -> P256.Signing.ECDSASignature {
        try P256.Signing.PrivateKey(pemRepresentation: pemRepresentation).signature(for: data)
    }
}
