import Foundation
import JWTKit
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// One test per rejection, with tokens signed here through jwt-kit.
@Suite struct IDTokenValidatorTests {
    static let issuer = "https://auth.example.com"
    static let clientID = "client-1"
    static let longSecret = "a-client-secret-of-at-least-32-bytes-0123456789"
    let now = Date(timeIntervalSince1970: 1_900_000_000)
    let key = ES256PrivateKey()

    struct Claims: JWTPayload {
        var iss: String? = IDTokenValidatorTests.issuer
        var sub: String? = "user-1"
        var aud: AudienceClaim? = AudienceClaim(value: [IDTokenValidatorTests.clientID])
        var exp: Double? = 1_900_000_600
        var iat: Double? = 1_900_000_000
        var nonce: String? = "nonce-1"
        var azp: String?
        var at_hash: String?
        var auth_time: Double?

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private func provider(algs: String = "", userinfo: Bool = false) throws -> Provider {
        var endpoints = [("jwks", "https://auth.example.com/jwks")]
        if userinfo { endpoints.append(("userinfo", "https://auth.example.com/userinfo")) }
        return try TestDescriptor(protocol: .oidc, issuer: Self.issuer, extra: algs).with(endpoints: endpoints).provider()
    }

    private func jwks(_ keys: [(String, ES256PrivateKey)]) throws -> String {
        let entries = try keys.map { kid, key -> String in
            let parameters = try #require(key.parameters)
            return #"{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","kid":"\#(kid)","alg":"ES256","use":"sig"}"#
        }
        return #"{"keys":[\#(entries.joined(separator: ","))]}"#
    }

    private func makeValidator(_ provider: Provider? = nil, secret: Secret? = nil, keys: [(String, ES256PrivateKey)]? = nil)
        throws -> (IDTokenValidator, ScriptedTransport) {
        let body = try jwks(keys ?? [("k1", key)])
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let validator = IDTokenValidator(provider: try provider ?? self.provider(), clientID: Self.clientID, clientSecret: secret,
                                         transport: transport, clock: FixedClock(date: now))
        return (validator, transport)
    }

    private func sign(_ claims: Claims, with key: ES256PrivateKey? = nil, kid: String = "k1") async throws -> Secret {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key ?? self.key, kid: JWKIdentifier(string: kid))
        return Secret(try await keys.sign(claims, kid: JWKIdentifier(string: kid)))
    }

    private func rejection(_ token: Secret, nonce: String? = "nonce-1", accessToken: String? = nil,
                           validator: IDTokenValidator? = nil) async throws -> IDTokenError {
        let validator = try validator ?? makeValidator().0
        return try await #require(throws: IDTokenError.self) {
            try await validator.validate(token, nonce: nonce.map(Secret.init), accessToken: accessToken.map(Secret.init))
        }
    }

    @Test func validTokenPasses() async throws {
        var claims = Claims()
        claims.at_hash = IDTokenValidator.accessTokenHash("access-1", algorithm: .es256)
        let (validator, _) = try makeValidator()
        let result = try await validator.validate(try await sign(claims), nonce: Secret("nonce-1"), accessToken: Secret("access-1"))
        #expect(result.subject == "user-1")
        #expect(result.audiences == [Self.clientID])
    }

    @Test func wrongIssuer() async throws {
        var claims = Claims()
        claims.iss = "https://evil.example.com"
        #expect(try await rejection(try await sign(claims)).code == .issuerMismatch)
    }

    @Test func wrongAudience() async throws {
        var claims = Claims()
        claims.aud = AudienceClaim(value: ["someone-else"])
        #expect(try await rejection(try await sign(claims)).code == .audienceMismatch)
    }

    @Test func severalAudiencesNeedTheRightAuthorizedParty() async throws {
        var claims = Claims()
        claims.aud = AudienceClaim(value: [Self.clientID, "api"])
        #expect(try await rejection(try await sign(claims)).code == .authorizedPartyMismatch)
        claims.azp = Self.clientID
        let (validator, _) = try makeValidator()
        #expect(try await validator.validate(try await sign(claims), nonce: Secret("nonce-1"), accessToken: nil).authorizedParty == Self.clientID)
    }

    @Test func expired() async throws {
        var claims = Claims()
        claims.exp = now.timeIntervalSince1970 - 120
        #expect(try await rejection(try await sign(claims)).code == .expired)
    }

    @Test func expiryWithinTheLeewayPasses() async throws {
        var claims = Claims()
        claims.exp = now.timeIntervalSince1970 - 30
        let (validator, _) = try makeValidator()
        _ = try await validator.validate(try await sign(claims), nonce: Secret("nonce-1"), accessToken: nil)
    }

    @Test func issuedInTheFuture() async throws {
        var claims = Claims()
        claims.iat = now.timeIntervalSince1970 + 600
        #expect(try await rejection(try await sign(claims)).code == .issuedInFuture)
    }

    @Test func missingNonce() async throws {
        var claims = Claims()
        claims.nonce = nil
        #expect(try await rejection(try await sign(claims)).code == .nonceMissing)
    }

    @Test func mismatchedNonce() async throws {
        #expect(try await rejection(try await sign(Claims()), nonce: "another-nonce").code == .nonceMismatch)
    }

    /// A provider whose ID tokens never carry the nonce (LinkedIn: `security.nonce_echoed: false`): a token without one
    /// passes, after every other check; one that carries a nonce must carry the one sent. Before, such a provider could
    /// only be plain OAuth 2.0, its ID token kept unverified.
    @Test func aProviderDeclaredNotToEchoTheNonce() async throws {
        let (validator, _) = try makeValidator(try provider(algs: "security:\n  nonce_echoed: false\n"))
        var claims = Claims()
        claims.nonce = nil
        #expect(try await validator.validate(try await sign(claims), nonce: Secret("nonce-1"), accessToken: nil).nonce == nil)
        #expect(try await rejection(try await sign(Claims()), nonce: "another-nonce", validator: validator).code == .nonceMismatch)
        var expired = claims
        expired.exp = now.timeIntervalSince1970 - 120
        #expect(try await rejection(try await sign(expired), validator: validator).code == .expired)
        var elsewhere = claims
        elsewhere.aud = AudienceClaim(value: ["someone-else"])
        #expect(try await rejection(try await sign(elsewhere), validator: validator).code == .audienceMismatch)
        var forged = claims
        forged.iss = "https://evil.example.com"
        #expect(try await rejection(try await sign(forged), validator: validator).code == .issuerMismatch)
        #expect(try await rejection(try await sign(claims, with: ES256PrivateKey()), validator: validator).code == .badSignature)
    }

    @Test func badSignature() async throws {
        let token = try await sign(Claims(), with: ES256PrivateKey(), kid: "k1")
        #expect(try await rejection(token).code == .badSignature)
    }

    @Test func tamperedPayload() async throws {
        let parts = try await sign(Claims()).value.split(separator: ".").map(String.init)
        var claims = Claims()
        claims.sub = "admin"
        let forgedPayload = Base64URL.encode(try JSONEncoder().encode(claims))
        #expect(try await rejection(Secret([parts[0], forgedPayload, parts[2]].joined(separator: "."))).code == .badSignature)
    }

    @Test func algNoneIsAlwaysRefused() async throws {
        let header = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(try JSONEncoder().encode(Claims()))
        #expect(try await rejection(Secret("\(header).\(payload).")).code == .algorithmNotAllowed)
    }

    @Test func unknownKeyIsFetchedAgainOnceThenRefused() async throws {
        let (validator, transport) = try makeValidator()
        _ = try await validator.validate(try await sign(Claims()), nonce: Secret("nonce-1"), accessToken: nil)
        #expect(transport.count("/jwks") == 1)
        let error = try await rejection(try await sign(Claims(), with: ES256PrivateKey(), kid: "rotated"), validator: validator)
        #expect(error.code == .unknownKey)
        #expect(transport.count("/jwks") == 2)
    }

    @Test func hs256IsRefusedUnlessTheDescriptorOptsIn() async throws {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Self.longSecret), digestAlgorithm: .sha256)
        let token = Secret(try await keys.sign(Claims()))
        #expect(try await rejection(token).code == .algorithmNotAllowed)

        let optIn = try provider(algs: "security:\n  id_token_algs: [HS256]\n")
        let (validator, _) = try makeValidator(optIn, secret: Secret(Self.longSecret))
        #expect(try await validator.validate(token, nonce: Secret("nonce-1"), accessToken: nil).subject == "user-1")
        let (wrongSecret, _) = try makeValidator(optIn, secret: Secret(String(Self.longSecret.reversed())))
        let error = try await #require(throws: IDTokenError.self) { try await wrongSecret.validate(token, nonce: Secret("nonce-1"), accessToken: nil) }
        #expect(error.code == .badSignature)
        let (short, _) = try makeValidator(optIn, secret: Secret("short-secret"))
        let tooShort = try await #require(throws: IDTokenError.self) { try await short.validate(token, nonce: Secret("nonce-1"), accessToken: nil) }
        #expect(tooShort.code == .keysUnavailable)
    }

    @Test func accessTokenHashMismatch() async throws {
        var claims = Claims()
        claims.at_hash = IDTokenValidator.accessTokenHash("access-1", algorithm: .es256)
        #expect(try await rejection(try await sign(claims), accessToken: "substituted").code == .accessTokenHashMismatch)
    }

    @Test func refreshedTokenMustNameTheSameSubject() async throws {
        let (validator, _) = try makeValidator()
        let original = try await sign(Claims())
        var refreshed = Claims()
        refreshed.nonce = nil
        _ = try await validator.validateRefreshed(try await sign(refreshed), previous: original, accessToken: nil)
        refreshed.sub = "user-2"
        let error = try await #require(throws: IDTokenError.self) {
            try await validator.validateRefreshed(try await sign(refreshed), previous: original, accessToken: nil)
        }
        #expect(error.code == .subjectMismatch)
    }

    @Test func userinfoSubjectMustMatchTheIDToken() async throws {
        let idToken = try await sign(Claims())
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"sub":"user-2"}"#.utf8))
        }
        let client = OAuthClient(provider: try provider(userinfo: true), configuration: ClientConfiguration(
            clientID: Self.clientID, redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
        let tokens = TokenSet(accessToken: Secret("a"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: idToken,
                              scopes: ["openid"], issuedAt: now)
        let error = try await #require(throws: IDTokenError.self) { try await client.userInfo(tokens) }
        #expect(error.code == .subjectMismatch)
    }

    @Test func missingSubject() async throws {
        var claims = Claims()
        claims.sub = nil
        #expect(try await rejection(try await sign(claims)).code == .subjectMissing)
        claims.sub = ""
        #expect(try await rejection(try await sign(claims)).code == .subjectMissing)
    }

    @Test(arguments: [(true, false, "`exp`"), (false, true, "`iat`"), (true, true, "`exp` and `iat`")])
    func aMissingTimeClaimIsNamed(dropExpiry: Bool, dropIssuedAt: Bool, named: String) async throws {
        var claims = Claims()
        if dropExpiry { claims.exp = nil }
        if dropIssuedAt { claims.iat = nil }
        let error = try await rejection(try await sign(claims))
        #expect(error.code == .malformed)
        #expect(error.message == "the ID token lacks \(named) (a number of seconds)", "\(error.message)")
    }

    @Test func notBeforeInTheFuture() async throws {
        struct WithNotBefore: JWTPayload {
            var base = Claims()
            var nbf: Double
            func verify(using algorithm: some JWTAlgorithm) throws {}
            enum CodingKeys: String, CodingKey { case nbf }
            func encode(to encoder: any Encoder) throws {
                try base.encode(to: encoder)
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(nbf, forKey: .nbf)
            }
            init(nbf: Double) { self.nbf = nbf }
            init(from decoder: any Decoder) throws { fatalError("not decoded in tests") }
        }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: "k1"))
        let future = Secret(try await keys.sign(WithNotBefore(nbf: now.timeIntervalSince1970 + 600), kid: JWKIdentifier(string: "k1")))
        let early = try await rejection(future)
        #expect(early.code == .notYetValid)
        // It names the claim, and says "ID token" as every other rejection does.
        #expect(early.message.contains("`nbf`") && early.message.hasPrefix("the ID token"), "\(early.message)")
        let withinLeeway = Secret(try await keys.sign(WithNotBefore(nbf: now.timeIntervalSince1970 + 30), kid: JWKIdentifier(string: "k1")))
        let (validator, _) = try makeValidator()
        #expect(try await validator.validate(withinLeeway, nonce: Secret("nonce-1"), accessToken: nil).subject == "user-1")
    }

    @Test func criticalHeaderParametersAreRefused() async throws {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: "k1"))
        let header: JWTHeader = ["crit": .array([.string("x-must-understand")]), "x-must-understand": .bool(true)]
        let token = Secret(try await keys.sign(Claims(), kid: JWKIdentifier(string: "k1"), header: header))
        #expect(try await rejection(token).code == .unsupportedCriticalHeader)
    }

    @Test func aFreshValidatorFetchesOnceForItsFirstTokenAndRefetchesForTheNext() async throws {
        let rotated = ES256PrivateKey()
        let before = try jwks([("k1", key)])
        let after = try jwks([("k2", rotated)])
        let transport = ScriptedTransport { _, n in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data((n == 1 ? before : after).utf8))
        }
        let validator = IDTokenValidator(provider: try provider(), clientID: Self.clientID, transport: transport, clock: FixedClock(date: now))
        let token = try await sign(Claims(), with: rotated, kid: "k2")
        // The set fetched for this very token is the current one: no second fetch for it.
        #expect(try await rejection(token, validator: validator).code == .unknownKey)
        #expect(transport.count("/jwks") == 1)
        // The next token naming the key the set lacked gets its refetch, which finds the rotated key.
        #expect(try await validator.validate(token, nonce: Secret("nonce-1"), accessToken: nil).subject == "user-1")
        #expect(transport.count("/jwks") == 2)
        // Another unknown key within the refetch interval costs no request.
        let error = try await rejection(try await sign(Claims(), with: ES256PrivateKey(), kid: "k3"), validator: validator)
        #expect(error.code == .unknownKey)
        #expect(transport.count("/jwks") == 2)
    }

    @Test func keysWithoutKeyIDVerifyTokensWithAndWithoutKid() async throws {
        let parameters = try #require(key.parameters)
        let body = #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","alg":"ES256"}]}"#
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 200, body: Data(body.utf8)) }
        let validator = IDTokenValidator(provider: try provider(), clientID: Self.clientID, transport: transport, clock: FixedClock(date: now))
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key)
        let withoutKid = Secret(try await keys.sign(Claims()))
        #expect(try await validator.validate(withoutKid, nonce: Secret("nonce-1"), accessToken: nil).subject == "user-1")
        #expect(try await validator.validate(try await sign(Claims(), kid: "any"), nonce: Secret("nonce-1"), accessToken: nil).subject == "user-1")
        let forged = Secret(try await { let other = JWTKeyCollection(); await other.add(ecdsa: ES256PrivateKey()); return try await other.sign(Claims()) }())
        #expect(try await rejection(forged, validator: validator).code == .badSignature)
    }

    @Test func refreshedTokenMustKeepTheSignInsAudienceAndAuthorizedParty() async throws {
        let (validator, _) = try makeValidator()
        var original = Claims()
        original.auth_time = 1_899_999_000
        let stored = try await sign(original)
        var same = original
        same.nonce = nil
        same.iat = 1_900_000_030
        _ = try await validator.validateRefreshed(try await sign(same), previous: stored, accessToken: nil)
        // Django OAuth Toolkit reports the user's latest sign-in anywhere as `auth_time`: a later one is not refused.
        var later = same
        later.auth_time = 1_900_000_050
        _ = try await validator.validateRefreshed(try await sign(later), previous: stored, accessToken: nil)

        var wider = same
        wider.aud = AudienceClaim(value: [Self.clientID, "https://api.example.com"])
        wider.azp = Self.clientID
        var named = same
        named.azp = Self.clientID
        let cases: [(Claims, IDTokenError.Code)] = [
            (wider, .audienceMismatch), (named, .authorizedPartyMismatch),
        ]
        for (claims, code) in cases {
            let error = try await #require(throws: IDTokenError.self) {
                try await validator.validateRefreshed(try await sign(claims), previous: stored, accessToken: nil)
            }
            #expect(error.code == code)
        }
    }

    @Test func refreshedTokenIsRefusedWhenTheStoredOneNamesNoSubject() async throws {
        let (validator, _) = try makeValidator()
        var stored = Claims()
        stored.sub = nil
        var refreshed = Claims()
        refreshed.nonce = nil
        let error = try await #require(throws: IDTokenError.self) {
            try await validator.validateRefreshed(try await sign(refreshed), previous: try await sign(stored), accessToken: nil)
        }
        #expect(error.code == .subjectMismatch)
    }

    @Test func deeplyNestedClaimsAreMalformed() async throws {
        let nested = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let header = Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))
        let payload = Base64URL.encode(Data(#"{"sub":"x","deep":\#(nested)}"#.utf8))
        let error = try #require(throws: IDTokenError.self) { try IDTokenValidator.decodeUnverified("\(header).\(payload).sig") }
        #expect(error.code == .malformed)
    }

    @Test func sessionUserinfoIsCheckedAgainstTheIDToken() async throws {
        let idToken = try await sign(Claims())
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"sub":"user-2"}"#.utf8))
        }
        let redirect = URL(string: "http://127.0.0.1/callback")!
        let client = OAuthClient(
            provider: try provider(userinfo: true), configuration: ClientConfiguration(clientID: Self.clientID, redirectURI: redirect),
            environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: now)))
        let tokens = TokenSet(accessToken: Secret("a"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: idToken,
                              scopes: ["openid"], issuedAt: now)
        let session = StoredSession(key: SessionKey(providerID: "example"), variables: [:], clientID: Self.clientID, redirectURI: redirect,
                                    tokens: tokens, updatedAt: now)
        let manager = TokenManager(client: client, store: InMemoryTokenStore([session]), key: session.key)
        let error = try await #require(throws: IDTokenError.self) { try await manager.userInfo() }
        #expect(error.code == .subjectMismatch)
    }

    @Test(arguments: ["a.b", "a.b.c.d", "!!!.???.sig", ""])
    func malformedTokens(_ token: String) async throws {
        #expect(try await rejection(Secret(token)).code == .malformed)
    }
}
