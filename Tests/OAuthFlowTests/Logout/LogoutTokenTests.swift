import Foundation
import JWTKit
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// Back-Channel Logout 1.0 §2.6, one test per check: every refusal names its rule.
@Suite struct LogoutTokenTests {
    let fixture: LogoutFixture

    init() throws { fixture = try LogoutFixture() }

    private func validate(_ token: String) async throws -> LogoutTokenClaims {
        try await fixture.client.idTokenValidator().validateLogoutToken(Secret(token), maximumAge: 300)
    }

    private func refusal(_ token: String) async throws -> IDTokenError {
        try await #require(throws: IDTokenError.self) { try await validate(token) }
    }

    @Test func aValidTokenNamesItsSessionAndUser() async throws {
        let simulated = try SimulatedProvider()
        let token = try await simulated.logoutToken(subject: "user-1", sessionID: "sid-1")
        let claims = try await Simulated.appClient(simulated).idTokenValidator().validateLogoutToken(Secret(token), maximumAge: 300)
        let jti = try #require(try IDTokenValidator.decodeUnverified(token).1["jti"]?.stringValue)
        #expect(claims.sessionID == "sid-1" && claims.subject == "user-1" && claims.tokenID == jti)
        #expect(claims.issuer == simulated.issuer.absoluteString && claims.audiences == [SimulatedProvider.appClientID])
    }

    @Test func withoutTypOrWithTheMediaTypeItPasses() async throws {
        _ = try await validate(try fixture.sign(fixture.claims(), header: ["alg": .string("ES256"), "kid": .string("k1")]))
        _ = try await validate(
            try fixture.sign(fixture.claims(), header: ["alg": .string("ES256"), "kid": .string("k1"), "typ": .string("application/logout+jwt")]))
    }

    @Test func anotherTypIsRefused() async throws {
        let token = try fixture.sign(fixture.claims(), header: ["alg": .string("ES256"), "kid": .string("k1"), "typ": .string("JWT")])
        #expect(try await refusal(token).code == .notALogoutToken)
    }

    @Test func unsignedAndNoneAreRefused() async throws {
        let input = try LogoutFixture.part(["alg": .string("none"), "typ": .string("logout+jwt")]) + "." + LogoutFixture.part(fixture.claims())
        #expect(try await refusal(input + ".").code == .algorithmNotAllowed)
        #expect(try await refusal(input).code == .malformed)
    }

    @Test func hmacIsRefused() async throws {
        let input = try LogoutFixture.part(["alg": .string("HS256"), "typ": .string("logout+jwt")]) + "." + LogoutFixture.part(fixture.claims())
        #expect(try await refusal(input + ".c2lnbmF0dXJl").code == .algorithmNotAllowed)
    }

    @Test func anotherKeysSignatureIsRefused() async throws {
        #expect(try await refusal(try fixture.sign(fixture.claims(), with: ES256PrivateKey())).code == .badSignature)
    }

    @Test func aTokenForAnotherClientIsRefused() async throws {
        var claims = fixture.claims()
        claims["aud"] = .array([.string("another-client")])
        #expect(try await refusal(try fixture.sign(claims)).code == .audienceMismatch)
    }

    @Test func anotherIssuerIsRefused() async throws {
        var claims = fixture.claims()
        claims["iss"] = .string("https://evil.example.com")
        #expect(try await refusal(try fixture.sign(claims)).code == .issuerMismatch)
    }

    @Test func aNonceMakesItAnIDTokenNotALogoutToken() async throws {
        var claims = fixture.claims()
        claims["nonce"] = .string("n-1")
        let error = try await refusal(try fixture.sign(claims))
        #expect(error.code == .notALogoutToken && error.message.contains("nonce"))
    }

    @Test func eventsMustHoldTheLogoutEventAsAnObject() async throws {
        for events: JSONValue? in [nil, .object([:]), .array([.string(IDTokenValidator.backChannelLogoutEvent)]),
                                   .object([IDTokenValidator.backChannelLogoutEvent: .string("yes")])] {
            var claims = fixture.claims()
            claims["events"] = events
            #expect(try await refusal(try fixture.sign(claims)).code == .notALogoutToken, "events \(String(describing: events))")
        }
    }

    @Test func anOldTokenIsRefused() async throws {
        var claims = fixture.claims()
        claims["iat"] = .number(fixture.now.timeIntervalSince1970 - 300 - 61)
        claims["exp"] = nil
        #expect(try await refusal(try fixture.sign(claims)).code == .tooOld)
    }

    @Test func aTokenFromTheFutureIsRefused() async throws {
        var claims = fixture.claims()
        claims["iat"] = .number(fixture.now.timeIntervalSince1970 + 3600)
        #expect(try await refusal(try fixture.sign(claims)).code == .issuedInFuture)
    }

    @Test func anExpiredTokenIsRefused() async throws {
        var claims = fixture.claims()
        claims["exp"] = .number(fixture.now.timeIntervalSince1970 - 120)
        #expect(try await refusal(try fixture.sign(claims)).code == .expired)
    }

    @Test func missingIatOrJtiIsRefused() async throws {
        var claims = fixture.claims()
        claims["iat"] = nil
        #expect(try await refusal(try fixture.sign(claims)).code == .malformed)
        claims = fixture.claims()
        claims["jti"] = nil
        #expect(try await refusal(try fixture.sign(claims)).code == .notALogoutToken)
    }

    @Test func neitherSubNorSidIsRefused() async throws {
        #expect(try await refusal(try fixture.sign(fixture.claims(sid: nil, sub: nil))).code == .notALogoutToken)
        _ = try await validate(try fixture.sign(fixture.claims(sid: nil)))
        _ = try await validate(try fixture.sign(fixture.claims(sub: nil)))
    }
}
