import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTestSupport

/// An OpenID provider in the test process, behind a transport: token endpoint (ID tokens signed with
/// ES256, nonces remembered per code as the provider would), JWKS and userinfo; it also signs RFC 9068
/// access tokens for the API tests with the same key.
final class SimulatedIdentityProvider: HTTPTransport, @unchecked Sendable {
    let issuer: String
    let host: String
    private let key = P256.Signing.PrivateKey()
    private let lock = NSLock()
    private var nonces: [String: String] = [:]
    private var paths: [String] = []

    init(host: String) {
        self.host = host
        issuer = "https://\(host)"
    }

    /// The descriptor: OpenID Connect, endpoints on its host, a resource its `read` scope opens; with
    /// `logout`, an end-session endpoint and back- and front-channel logout too.
    func descriptor(id: String, responseMode: String = "query", logout: Bool = false) -> String {
        let logoutLines =
            logout
            ? """

              end_session: \(issuer)/logout
              revocation: \(issuer)/revoke
            logout:
              backchannel_logout_supported: true
              frontchannel_logout_supported: true
            """ : ""
        return """
            schema_version: 1
            id: \(id)
            display_name: \(id.capitalized) <Accounts>
            protocol: oidc
            issuer: \(issuer)
            endpoints:
              authorization: \(issuer)/authorize
              token: \(issuer)/token
              jwks: \(issuer)/jwks
              userinfo: \(issuer)/userinfo\(logoutLines)
            scopes:
              default: [openid, profile, read]
            authorization:
              response_mode: \(responseMode)
            security:
              nonce: true
              iss_parameter: if_present
            resources:
              - scope: read
                title: Reports
                url: https://api.\(host)/reports
            """
    }

    var tokenRequests: Int { lock.withLock { paths.filter { $0 == "/token" }.count } }
    var revocations: Int { lock.withLock { paths.filter { $0 == "/revoke" }.count } }

    /// A back-channel logout token naming `subject`, for `audience`, issued now.
    func logoutToken(subject: String = "user-42", audience: String = "web-client") throws -> String {
        try sign(
            [
                "iss": .string(issuer), "sub": .string(subject), "aud": .string(audience),
                "iat": .number(Date().timeIntervalSince1970.rounded(.down)), "jti": .string(Base64URL.random(bytes: 12)),
                "events": .object(["http://schemas.openid.net/event/backchannel-logout": .object([:])]),
            ], type: "logout+jwt")
    }

    /// Remembers the nonce of the authorization request that `code` answers.
    func authorize(_ authorizationURL: String, code: String) {
        let nonce = URLComponents(string: authorizationURL)?.queryItems?.first { $0.name == "nonce" }?.value ?? ""
        lock.withLock { nonces[code] = nonce }
    }

    /// A compact JWS of `claims` under this provider's key.
    func sign(_ claims: [String: JSONValue], type: String = "JWT") throws -> String {
        func encode(_ object: [String: JSONValue]) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return Base64URL.encode(try encoder.encode(JSONValue.object(object)))
        }
        let input = try encode(["alg": .string("ES256"), "kid": .string("k1"), "typ": .string(type)]) + "." + encode(claims)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// The descriptor an API that trusts this provider's RFC 9068 access tokens uses (DPoP-bound ones too).
    var apiDescriptor: TestDescriptor {
        TestDescriptor(
            id: "issuer", issuer: issuer, endpoints: [("jwks", "\(issuer)/jwks")],
            extra: "access_tokens:\n  profile: rfc9068\n  signing_algs: [ES256]\nsecurity:\n  dpop: if_supported\n")
    }

    /// An RFC 9068 access token for `audience`, granting `scopes`, valid for ten minutes; `more` claims added.
    func accessToken(audience: String, scopes: [String], subject: String = "user-42", more: [String: JSONValue] = [:]) throws -> String {
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(audience), "client_id": .string("web-client"),
            "iat": .number(now), "exp": .number(now + 600), "jti": .string(Base64URL.random(bytes: 12)),
            "scope": .string(scopes.joined(separator: " ")),
        ]
        claims.merge(more) { _, new in new }
        return try sign(claims, type: "at+jwt")
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        lock.withLock { paths.append(request.url.path) }
        let json = ["Content-Type": "application/json"]
        switch request.url.path {
        case "/token":
            let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))) { first, _ in first }
            guard let code = form["code"], form["code_verifier"] != nil, let nonce = lock.withLock({ nonces.removeValue(forKey: code) }) else {
                return TransportResponse(status: 400, headers: json, body: Data(#"{"error":"invalid_grant"}"#.utf8))
            }
            let now = Date().timeIntervalSince1970.rounded(.down)
            let idToken = try sign([
                "iss": .string(issuer), "sub": .string("user-42"), "aud": .string("web-client"), "exp": .number(now + 600), "iat": .number(now),
                "nonce": .string(nonce), "name": .string("Ada Lovelace"), "email": .string("ada@example.com"),
            ])
            let body = #"{"access_token":"at-\#(code)","token_type":"Bearer","expires_in":3600,"scope":"openid profile read","id_token":"\#(idToken)"}"#
            return TransportResponse(status: 200, headers: json, body: Data(body.utf8))
        case "/jwks":
            let point = key.publicKey.x963Representation.dropFirst()
            let x = Base64URL.encode(Data(point.prefix(32)))
            let y = Base64URL.encode(Data(point.suffix(32)))
            let body = #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","kid":"k1","alg":"ES256","use":"sig"}]}"#
            return TransportResponse(status: 200, headers: json, body: Data(body.utf8))
        case "/revoke":
            return TransportResponse(status: 200, headers: [:], body: Data())
        case "/userinfo":
            return TransportResponse(
                status: 200, headers: json, body: Data(#"{"sub":"user-42","email_verified":true,"picture":"https://example.com/ada.png"}"#.utf8))
        default:
            return TransportResponse(status: 404, headers: [:], body: Data())
        }
    }
}

/// Several simulated providers behind one transport, by host.
struct SimulatedProviders: HTTPTransport {
    let byHost: [String: SimulatedIdentityProvider]

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let provider = byHost[request.url.host ?? ""] else { throw TransportError(url: request.url, message: "no such host") }
        return try await provider.send(request)
    }
}
