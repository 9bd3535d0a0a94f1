import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import OAuthFlowHummingbird
import OAuthFlowWeb
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Sign in with Apple through the Hummingbird routes, the bundled descriptor against a stand-in that answers as
/// Apple documents: a form_post callback (a cross-site POST, so the pending cookie is SameSite=None; Secure), the
/// `user` field with the name on the first consent only, `email_verified` as a string, no userinfo endpoint, and
/// a client secret the engine signs with the client's ES256 key.
@Suite struct AppleSignInRouteTests {
    /// Apple's token endpoint and JWKS: it checks the client secret with the client's public key and signs ID tokens (RS256).
    final class StandIn: HTTPTransport, @unchecked Sendable {
        let clientKey = P256.Signing.PrivateKey()
        private let lock = NSLock()
        private var nonces: [String: String] = [:]
        private(set) var secretsSeen: [String] = []
        func tokenKey() throws -> JWTKit.Insecure.RSA.PrivateKey {
            try JWTKit.Insecure.RSA.PrivateKey(
                pem: String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys/client.key"), encoding: .utf8))
        }

        func authorize(_ url: String, code: String) {
            let nonce = URLComponents(string: url)?.queryItems?.first { $0.name == "nonce" }?.value ?? ""
            lock.withLock { nonces[code] = nonce }
        }

        struct Claims: JWTPayload {
            var iss = "https://appleid.apple.com"
            var aud: String
            var sub = "001234.0f9c8b7a6d5e4c3b2a1f.1234"
            var email = "ada@privaterelay.appleid.com"
            var email_verified = "true"
            var is_private_email = "true"
            var nonce: String
            var iat: Double
            var exp: Double
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            switch request.url.absoluteString {
            case "https://appleid.apple.com/auth/token":
                let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { a, _ in a })
                let secret = try #require(form["client_secret"])
                let jws = try CompactJWS(secret)
                let signature = try P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
                guard clientKey.publicKey.isValidSignature(signature, for: Data(jws.signingInput)), jws.claims["iss"]?.stringValue == "ABCDE12345",
                    jws.claims["sub"]?.stringValue == "com.example.web", jws.claims["aud"]?.stringValue == "https://appleid.apple.com"
                else {
                    return TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_client"}"#.utf8))
                }
                lock.withLock { secretsSeen.append(secret) }
                guard let code = form["code"], let nonce = lock.withLock({ nonces.removeValue(forKey: code) }) else {
                    return TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_grant"}"#.utf8))
                }
                let keys = JWTKeyCollection()
                await keys.add(rsa: try tokenKey(), digestAlgorithm: .sha256, kid: "apple-1")
                let now = Date().timeIntervalSince1970
                let idToken = try await keys.sign(Claims(aud: "com.example.web", nonce: nonce, iat: now, exp: now + 600), kid: "apple-1")
                let body = #"{"access_token":"a0.\#(code)","token_type":"Bearer","expires_in":3600,"refresh_token":"r0.\#(code)","id_token":"\#(idToken)"}"#
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            case "https://appleid.apple.com/auth/keys":
                let (n, e) = try tokenKey().publicKey.getKeyPrimitives()
                let body = #"{"keys":[{"kty":"RSA","kid":"apple-1","use":"sig","alg":"RS256","n":"\#(Base64URL.encode(n))","e":"\#(Base64URL.encode(e))"}]}"#
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            default:
                return TransportResponse(status: 404, headers: [:], body: Data())
            }
        }
    }

    final class SignIns: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [WebSignInResult] = []
        func append(_ result: WebSignInResult) { lock.withLock { results.append(result) } }
        var all: [WebSignInResult] { lock.withLock { results } }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func firstAndSecondSignInThroughTheFormPostRoute() async throws {
        let apple = StandIn()
        let web = try WebSignIn(registry: ProviderRegistry.load(includeUserDirectory: false),
            enable: [
                "apple": .init(
                    clientID: "com.example.web", variables: ["team_id": "ABCDE12345"],
                    signingKey: try ClientConfiguration.SigningKey(pem: apple.clientKey.pemRepresentation, keyID: "KEY123ABCD"))
            ], origin: URL(string: "https://app.example.com")!, keyring: SessionKeyring(current: WebSignInTests.keyA), environment: OAuthEnvironment(transport: apple))
        let signIns = SignIns()
        let router = Router()
        router.addSignInRoutes(web) { result, _, _ in
            signIns.append(result)
            return Response(status: .seeOther, headers: [.location: result.returnTo])
        }
        try await Application(router: router).test(.router) { client in
            func signIn(code: String, user: String?) async throws -> HTTPResponse.Status {
                let started = try await WebSignInTests().start(client, "apple")
                #expect(started.location.hasPrefix("https://appleid.apple.com/auth/authorize?") && started.location.contains("response_mode=form_post"))
                #expect(started.setCookie.contains("SameSite=None") && started.setCookie.contains("Secure"), "the cookie survives Apple's cross-site POST")
                apple.authorize(started.location, code: code)
                var fields = [("state", started.state), ("code", code)]
                if let user { fields.append(("user", user)) }
                return try await client.execute(
                    uri: "/auth/apple/callback", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: "\(started.cookieName)=\(started.cookieValue)"],
                    body: ByteBuffer(string: FormEncoding.encode(fields))
                ) { $0.status }
            }
            let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"ada@privaterelay.appleid.com"}"#
            let first = try await signIn(code: "c1", user: user)
            let second = try await signIn(code: "c2", user: nil)
            #expect(first == .seeOther && second == .seeOther)
        }
        let results = signIns.all
        try #require(results.count == 2)
        #expect(results[0].profile == UserProfile(subject: "001234.0f9c8b7a6d5e4c3b2a1f.1234", name: "Ada Lovelace", email: "ada@privaterelay.appleid.com", emailVerified: true))
        #expect(results[0].callback["user"] != nil, "the one-time user field is handed to the host")
        #expect(results[1].profile.name == nil && results[1].callback["user"] == nil, "the name comes once")
        #expect(results[1].profile.emailVerified == true)
        #expect(results[1].claims["is_private_email"]?.stringValue == "true")
        #expect(apple.secretsSeen.count == 2 && apple.secretsSeen[0] == apple.secretsSeen[1], "one signed secret, reused while it is young")
    }

    /// A sign-in that could only fail after the user consented at Apple is refused when WebSignIn is made.
    @Test func settingsThatCannotWorkAreRefusedUpFront() throws {
        let registry = try ProviderRegistry.load(includeUserDirectory: false)
        let key = P256.Signing.PrivateKey().pemRepresentation
        func make(_ client: ClientSettings, origin: String = "https://app.example.com") throws -> WebSignIn {
            try WebSignIn(
                registry: registry, enable: ["apple": client], origin: URL(string: origin)!, keyring: SessionKeyring(current: WebSignInTests.keyA))
        }
        let variables = ["team_id": "ABCDE12345"]
        let cases: [(ClientSettings, String, String)] = [
            (.init(clientID: "com.example.web", variables: variables), "https://app.example.com", "private key"),
            (.init(clientID: "com.example.web", variables: variables, signingKey: try ClientConfiguration.SigningKey(pem: key)), "https://app.example.com", "Key ID"),
            (.init(clientID: "com.example.web", variables: variables, signingKey: try ClientConfiguration.SigningKey(pem: key, keyID: "KEY123ABCD")),
             "http://localhost:8080", "must be https"),
        ]
        for (client, origin, words) in cases {
            let error = try #require(throws: WebSignInError.self) { try make(client, origin: origin) }
            #expect(error.code == .configuration && error.message.contains(words), "\(error.message)")
        }
        _ = try make(.init(clientID: "com.example.web", variables: variables, signingKey: try ClientConfiguration.SigningKey(pem: key, keyID: "KEY123ABCD")))
    }

    @Test func theCLIRefusesAppleBeforeABrowserOpens() async throws {
        let provider = try ProviderRegistry.load(includeUserDirectory: false).descriptor(named: "apple").resolve(["team_id": "ABCDE12345"])
        #expect(provider.policy.webRedirectOnly)
        let error = FlowError.webRedirectOnly(provider)
        #expect(error.message.contains("https redirect URIs") && error.code == .invalidRedirectURI)
    }
}
