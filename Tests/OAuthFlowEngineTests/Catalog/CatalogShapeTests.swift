import Crypto
import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Every bundled descriptor against a stand-in that answers the way its provider's documentation says
/// (Fixtures/catalog/ID.json, which cites the page): the engine signs in (code exchange, ID token checks),
/// reads the profile through the descriptor's mapping, and refreshes.
@Suite struct CatalogShapeTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/catalog")

    /// One provider's answers, as its documentation shows them.
    struct Fixture: Decodable {
        struct Answer: Decodable {
            var status: Int
            var contentType: String?
            var body: String

            enum CodingKeys: String, CodingKey { case status, contentType = "content_type", body }
        }

        struct Expected: Decodable, Equatable {
            var subject: String?
            var name: String?
            var email: String?
            var emailVerified: Bool?
            var picture: String?

            enum CodingKeys: String, CodingKey { case subject, name, email, emailVerified = "email_verified", picture }
        }

        /// What the provider's pages say its profile request must carry; the stand-in answers 400 otherwise.
        struct ProfileRequest: Decodable {
            var method: String?
            var headers: [String: String]?
            var query: [String: String]?
            var body: String?
        }

        var source: String
        var variables: [String: String]?
        var clientSecret: String?
        var discovery: JSONValue?
        var callback: [String: String]?
        var token: Answer
        var idToken: [String: JSONValue]?
        var refresh: Answer?
        /// Parameters the provider's pages say a refresh must carry (VK ID's `device_id`); the stand-in answers 400 otherwise.
        var refreshRequest: [String: String]?
        var userinfo: Answer?
        var extra: Answer?
        var userinfoRequest: ProfileRequest?
        var expect: Expected
        /// False for a provider whose ID tokens do not carry the nonce sent (LinkedIn); the stand-in then leaves it out.
        var echoesNonce: Bool?
        /// The scopes the sign-in's answer grants, as the engine must read them from its `scope`.
        var grantedScopes: [String]?
        /// Parameters the provider's pages say the authorization request carries (FusionAuth's `tenantId`).
        var authorizationRequest: [String: String]?

        enum CodingKeys: String, CodingKey {
            case source, variables, clientSecret = "client_secret", discovery, callback, token, idToken = "id_token", refresh, userinfo, extra,
                userinfoRequest = "userinfo_request", expect, refreshRequest = "refresh_request", echoesNonce = "echoes_nonce",
                grantedScopes = "granted_scopes", authorizationRequest = "authorization_request"
        }
    }

    static var ids: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func fixture(_ id: String) throws -> Fixture {
        try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: directory.appendingPathComponent("\(id).json")))
    }

    /// What the stand-in was asked, by URL without its query.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var urls: [String] = []
        private var nonce: String?
        private var revoked: [TransportRequest] = []
        func note(_ url: String) { lock.withLock { urls.append(url) } }
        func noteRevocation(_ request: TransportRequest) { lock.withLock { revoked.append(request) } }
        var revocations: [TransportRequest] { lock.withLock { revoked } }
        var all: [String] { lock.withLock { urls } }
        var pendingNonce: String? {
            get { lock.withLock { nonce } }
            set { lock.withLock { nonce = newValue } }
        }
    }

    @Test(arguments: ids)
    func signInProfileAndRefresh(_ id: String) async throws {
        let fixture = try Self.fixture(id)
        #expect(fixture.source.hasPrefix("https://"), "\(id): the fixture cites the page its answers come from")
        let descriptor = try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false).descriptor(named: id)
        let variables = fixture.variables ?? descriptor.variables.compactMapValues { $0.default == nil ? $0.example : nil }
        let provider = try descriptor.resolve(variables)
        let clientID = "client-1"
        let key =
            try await provider.policy.idTokenAlgorithms.contains(.es256)
            ? ProtectionKey.es256("catalog")
            : ProtectionKey.rs256("catalog", pemFile: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys/client.key"))
        let document: [String: JSONValue] = if case let .object(members)? = fixture.discovery { members } else { [:] }
        func url(_ endpoint: URL?, _ member: String) -> String? {
            (endpoint?.absoluteString ?? document[member]?.stringValue).map(Self.withoutQuery)
        }
        let tokenURL = try #require(url(provider.endpoints.token, "token_endpoint"), "\(id): no token endpoint, in the descriptor or the fixture's discovery")
        let userinfoURL = url(provider.endpoints.userinfo, "userinfo_endpoint")
        let jwksURL = url(provider.endpoints.jwks, "jwks_uri")
        let discoveryURL = provider.discoveryURL.map { Self.withoutQuery($0.absoluteString) }
        let extraURL = provider.profile.extraCall.map { Self.withoutQuery($0.absoluteString) }
        let revocationURL = url(provider.endpoints.revocation, "revocation_endpoint")
        let refreshURL = provider.endpoints.refresh.map { Self.withoutQuery($0.absoluteString) }
        let calls = Calls()
        let issuer = provider.issuer?.absoluteString
        // A provider whose client secret the client signs (Apple): a key for it, and the stand-in checks the secret.
        let clientKey = P256.Signing.PrivateKey()
        let generated = provider.policy.generatedSecret
        let transport = ScriptedTransport { request, _ in
            let address = Self.withoutQuery(request.url.absoluteString)
            calls.note(address)
            func answer(_ answer: Fixture.Answer, _ body: String? = nil) -> TransportResponse {
                TransportResponse(
                    status: answer.status, headers: answer.contentType.map { ["Content-Type": $0] } ?? [:], body: Data((body ?? answer.body).utf8))
            }
            switch address {
            case tokenURL, refreshURL:
                let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { a, _ in a })
                let json = (try? JSONDecoder().decode([String: JSONValue].self, from: request.body ?? Data())) ?? [:]
                let grant = form["grant_type"] ?? json["grant_type"]?.stringValue
                if let generated {
                    let secret = try #require(form["client_secret"], "\(id): the generated client secret is sent")
                    let jws = try CompactJWS(secret)
                    #expect(jws.header["alg"]?.stringValue == "ES256" && jws.header["kid"]?.stringValue == "KEY123", "\(id): \(jws.header)")
                    #expect(jws.claims["iss"]?.stringValue == generated.issuer && jws.claims["sub"]?.stringValue == clientID)
                    #expect(jws.claims["aud"]?.stringValue == generated.audience)
                    let signature = try P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
                    #expect(clientKey.publicKey.isValidSignature(signature, for: Data(jws.signingInput)), "\(id): signed with the client's key")
                }
                if revocationURL == tokenURL, grant != "authorization_code", grant != "refresh_token" {
                    // A provider that revokes at its token endpoint (Naver's `grant_type=delete`).
                    calls.noteRevocation(request)
                    return TransportResponse(status: 200, headers: [:], body: Data())
                }
                let refreshing = grant == "refresh_token"
                if refreshing, let expected = fixture.refreshRequest {
                    let matches = expected.allSatisfy { (form[$0.key] ?? json[$0.key]?.stringValue) == $0.value }
                    #expect(matches, "\(id): the refresh \(form.keys.sorted()) does not carry what the pages say: \(expected)")
                    if !matches { return TransportResponse(status: 400, headers: [:], body: Data()) }
                }
                let reply = try #require(refreshing ? fixture.refresh : fixture.token, "\(id): a \(grant ?? "-") request the fixture does not answer")
                var body = reply.body
                if var claims = fixture.idToken, body.contains("ID_TOKEN") {
                    // A refreshed ID token carries no nonce (OpenID Connect Core §12.2).
                    let now = Date().timeIntervalSince1970.rounded(.down)
                    claims["aud"] = .string(clientID)
                    claims["iat"] = .number(now)
                    claims["exp"] = .number(now + 600)
                    if !refreshing, fixture.echoesNonce != false, let nonce = calls.pendingNonce { claims["nonce"] = .string(nonce) }
                    if claims["iss"] == nil, let issuer { claims["iss"] = .string(issuer) }
                    body = body.replacingOccurrences(of: "ID_TOKEN", with: try key.sign(claims, header: ["typ": .string("JWT")]))
                }
                return answer(reply, body)
            case userinfoURL where fixture.userinfo != nil:
                if let expected = fixture.userinfoRequest {
                    let query = Dictionary(
                        (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                        uniquingKeysWith: { a, _ in a })
                    let body = request.body.map { String(decoding: $0, as: UTF8.self) }
                    let matches =
                        (expected.method.map { $0 == request.method.rawValue } ?? true)
                        && (expected.headers ?? [:]).allSatisfy { request.headers[$0.key] == $0.value }
                        && (expected.query ?? [:]).allSatisfy { query[$0.key] == $0.value } && (expected.body.map { $0 == body } ?? true)
                    #expect(matches, "\(id): the profile request \(request.method.rawValue) \(request.headers) \(query) \(body ?? "") is not what the pages say")
                    if !matches { return TransportResponse(status: 400, headers: [:], body: Data()) }
                }
                return answer(try #require(fixture.userinfo))
            case revocationURL:
                calls.noteRevocation(request)
                return TransportResponse(status: 200, headers: [:], body: Data())
            case extraURL where fixture.extra != nil:
                return answer(try #require(fixture.extra))
            case jwksURL:
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(ProtectionToken.jwks([key.jwk()]).utf8))
            case discoveryURL where fixture.discovery != nil:
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(try #require(fixture.discovery)))
            default:
                return TransportResponse(status: 404, headers: [:], body: Data())
            }
        }
        let redirectURI = try #require(URL(string: "http://127.0.0.1:53682\(provider.loopback.path)"))
        let client = OAuthClient(provider: provider,
            configuration: ClientConfiguration(
                clientID: clientID, redirectURI: redirectURI, clientSecret: fixture.clientSecret.map(Secret.init),
                signingKey: generated == nil ? nil : try ClientConfiguration.SigningKey(pem: clientKey.pemRepresentation, keyID: "KEY123")), environment: OAuthEnvironment(transport: transport))

        let pending = try await client.startAuthorization()
        calls.pendingNonce = pending.nonce?.value
        if let expected = fixture.authorizationRequest {
            let query = URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            for (name, value) in expected {
                #expect(query.filter { $0.name == name }.map(\.value) == [value], "\(id): the authorization request carries \(name)=\(value): \(pending.url)")
            }
        }
        var parameters = [("code", "code-1"), ("state", pending.state.value)] + (fixture.callback ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if provider.policy.issParameter == .required, fixture.callback?["iss"] == nil, let issuer { parameters.append(("iss", issuer)) }
        if let signature = provider.policy.callbackSignature {
            // Signed as the provider's pages say: HMAC-SHA256 of the other parameters, sorted, with the client secret.
            let secret = try #require(fixture.clientSecret, "\(id): a signed callback needs the fixture's client secret")
            parameters.removeAll { $0.0 == signature.parameter }
            let message = parameters.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            let mac = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(secret.utf8)))
            parameters.append((signature.parameter, mac.map { String(format: "%02x", $0) }.joined()))
        }
        let outcome: OAuthClient.SignInOutcome
        if provider.policy.responseMode == .formPost {
            outcome = try await client.finishSignIn(.formPost(Data(FormEncoding.encode(parameters).utf8)), pending: pending)
        } else {
            var components = try #require(URLComponents(url: redirectURI, resolvingAgainstBaseURL: false))
            components.percentEncodedQuery = FormEncoding.encode(parameters)
            outcome = try await client.finishSignIn(.callback(try #require(components.url)), pending: pending)
        }
        #expect(!outcome.tokens.accessToken.value.isEmpty, "\(id): an access token")
        #expect((fixture.idToken != nil) == (outcome.idToken != nil), "\(id): the ID token is checked when the provider sends one")
        if let granted = fixture.grantedScopes {
            #expect(outcome.tokens.scopes == granted, "\(id): the granted scopes are read one by one from the answer's `scope`")
        }

        let profile = try await client.profile(outcome.tokens, idToken: outcome.idToken?.all, callback: outcome.callback)
        let mapped = Fixture.Expected(
            subject: profile.subject, name: profile.name, email: profile.email, emailVerified: profile.emailVerified, picture: profile.picture)
        #expect(mapped == fixture.expect, "\(id): the profile mapped from the documented answers (calls: \(calls.all))")

        var session = outcome.tokens
        if fixture.refresh != nil {
            #expect(outcome.tokens.refreshToken != nil, "\(id): the sign-in's answer carries a refresh token")
            session = try await client.refresh(outcome.tokens)
            #expect(!session.accessToken.value.isEmpty && session.refreshToken != nil, "\(id): refreshed, with a refresh token kept or rotated")
        }
        // Sign-out revokes each kind the provider revokes, as its section says; the stand-in sees each token go out.
        if revocationURL != nil {
            let kinds: [(OAuthClient.TokenKind, Secret?)] = [(.refreshToken, session.refreshToken), (.accessToken, session.accessToken)]
            for (kind, token) in kinds where client.revokes(kind) {
                guard let token else { continue }
                try await client.revoke(token, kind: kind)
                let sent = try #require(calls.revocations.last, "\(id): a \(kind.rawValue) revocation reached the stand-in")
                let settings = provider.policy.revocation
                #expect(sent.method.rawValue == settings.method.rawValue, "\(id): revoked with \(sent.method.rawValue)")
                let body = sent.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
                let carried: Bool
                switch settings.placement {
                case .body:
                    // The form, or JSON where token requests are JSON (Auth0, Notion).
                    let json = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(body.utf8))) ?? [:]
                    carried =
                        FormEncoding.decode(body).contains { $0 == (settings.tokenParameter, token.value) }
                        || json[settings.tokenParameter]?.stringValue == token.value
                case .query: carried = (URLComponents(url: sent.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).contains {
                        $0.name == settings.tokenParameter && $0.value == token.value
                    }
                case .bearer: carried = sent.headers["Authorization"] == "Bearer \(token.value)"
                }
                #expect(carried, "\(id): the \(kind.rawValue) went where `revocation.placement` says")
            }
        }
        #expect(
            !calls.all.contains { ![tokenURL, userinfoURL, extraURL, jwksURL, discoveryURL, revocationURL, refreshURL].contains($0) },
            "\(id): only its endpoints were called: \(calls.all)")
    }

    /// Every bundled descriptor has its shape fixture, cites the pages it was written from, and lints clean
    /// (the lint run is LinterTests'); every fixture is a bundled descriptor's.
    @Test func everyBundledDescriptorHasAFixtureAndCitesItsPages() throws {
        let registry = try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false)
        let bundled = Set(registry.all.map(\.descriptor.id))
        #expect(bundled.count >= 9)
        #expect(Set(Self.ids) == bundled, "fixtures without a descriptor: \(Set(Self.ids).subtracting(bundled).sorted()); descriptors without a fixture: \(bundled.subtracting(Self.ids).sorted())")
        for id in bundled.sorted() {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent("providers/\(id).yaml"), encoding: .utf8)
            let header = text.split(separator: "\n").prefix { $0.hasPrefix("#") }
            #expect(header.contains { $0.contains("https://") } || text.contains("docs_url: https://"), "\(id) names no page it was written from")
            #expect(try registry.descriptor(named: id).docsURL?.hasPrefix("https://") == true, "\(id) has no docs_url")
        }
    }

    /// README states how many providers are bundled: the number of descriptors.
    @Test func theReadmeCountsTheBundledProviders() throws {
        let count = try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false).all.count
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("Bundled: \(count) providers"), "README says another number than the \(count) bundled descriptors")
    }

    static func withoutQuery(_ address: String) -> String {
        address.split(separator: "?", maxSplits: 1).first.map(String.init) ?? address
    }
}
