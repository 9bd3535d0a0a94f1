import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

extension Protection {
    /// An ID token, a logout token or a security event token signed by the API's provider for the API's audience (an app
    /// and its API one client): not an access token, whatever the profile (RFC 9700 §2.2.2).
    @Suite struct TokenKindTests {
        let clock = StoppedClock()
        let server = InProcessAuthorizationServer()
        let es: ProtectionKey

        init() async throws {
            es = try await .es256("es-1")
            server.serveKeys([es])
        }

        func api() throws -> ProtectedResource {
            try ProtectedResource(
                providers: [ProtectionSetup.provider()], settings: ProtectionSetup.settings(),
                environment: OAuthEnvironment(transport: server, clock: clock))
        }

        /// Claims of the plain profile as JSON text, with `extra` members appended as written.
        func claims(_ extra: String) -> String {
            let now = Int(clock.now().timeIntervalSince1970)
            return #"{"iss":"\#(ProtectionToken.issuer)","sub":"user-1","aud":"\#(ProtectionToken.resource)","iat":\#(now),"exp":\#(now + 600)"#
                + extra + "}"
        }

        @Test(arguments: [
            (#","nonce":"n-1""#, "`nonce`"),
            (#","at_hash":"abc","scope":"notes:read""#, "`at_hash`"),
            (#","c_hash":"abc""#, "`c_hash`"),
            (#","events":{"http://schemas.openid.net/event/backchannel-logout":{}},"jti":"j""#, "`events`"),
            (#","typ":"ID","scope":"openid""#, "`id`"),
        ])
        func anotherKindOfTokenIsRefused(extra: String, named: String) async throws {
            let token = try es.sign(headerText: #"{"alg":"ES256","kid":"es-1"}"#, claimsText: claims(extra))
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains(named) == true && refusal?.reason.contains("not an access token") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test(arguments: ["logout+jwt", "secevent+jwt"])
        func aSecurityEventTypeIsRefused(type: String) async throws {
            let token = try es.sign(headerText: #"{"alg":"ES256","kid":"es-1","typ":"\#(type)"}"#, claimsText: claims(""))
            expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
        }

        /// Access tokens as servers issue them: plain, with a scope, and with a `nonce` beside their scopes (Keycloak copies it).
        @Test(arguments: ["", #","scope":"notes:read""#, #","nonce":"n-1","scope":"notes:read","typ":"Bearer""#, #","scp":["notes.read"],"nonce":"n""#])
        func accessTokensAreAccepted(extra: String) async throws {
            expectAccepted(await denial(try api(), bearer: try es.sign(headerText: #"{"alg":"ES256","kid":"es-1"}"#, claimsText: claims(extra))))
        }
    }
}
