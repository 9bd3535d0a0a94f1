import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// A response header sent in several fields reaches the engine whole (RFC 9110 §5.3): the values joined with ", " in
/// the order they came, so that a `Basic` challenge before a `Bearer` one does not hide the step-up, and `Set-Cookie`,
/// which cannot be combined, kept as its first field.
@Suite struct RepeatedHeaderFieldTests {
    /// A 401 from a real server on 127.0.0.1 with two `WWW-Authenticate` fields and two `Set-Cookie` fields, through the
    /// default transport: the engine sees both challenges and reads the step-up, not a bare token refusal (seen failing
    /// with the first field of each name kept: only `Basic` reached the engine, which then took the 401 for a refused token).
    @Test func twoChallengeFieldsReachTheEngineInOrder() async throws {
        let answer =
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"api\"\r\n"
            + "WWW-Authenticate: Bearer error=\"insufficient_user_authentication\", acr_values=\"urn:example:mfa\", max_age=300\r\n"
            + "Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2; Path=/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let server = try HostileServer(.fixed(Data(answer.utf8)))
        defer { server.stop() }
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: server.url))
        #expect(response.status == 401)
        #expect(response.challenges.map(\.scheme) == ["Basic", "Bearer"], "\(response.headers)")
        #expect(response.challenges.last?.error == "insufficient_user_authentication")
        #expect(!response.refusesToken, "a step-up is the API's answer, which a refresh cannot change")
        let stepUp = ProtectedResource.StepUp(challenges: response.header("WWW-Authenticate").map { [$0] } ?? [])
        #expect(stepUp == .init(acrValues: ["urn:example:mfa"], maximumAge: 300))
        #expect(response.header("set-cookie") == "a=1; Path=/")
    }

    /// The rule each transport applies to the fields it received.
    @Test func fieldsAreCombinedAsRFC9110Says() {
        let fields: [(name: String, value: String)] = [
            ("WWW-Authenticate", "Basic realm=\"api\""), ("Content-Type", "text/plain"), ("www-authenticate", "DPoP error=\"use_dpop_nonce\""),
            ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("Vary", ""), ("Vary", "Origin"), ("Vary", ""), ("WWW-Authenticate", "Bearer"),
        ]
        let headers = TransportResponse.combining(fields)
        #expect(headers["www-authenticate"] == "Basic realm=\"api\", DPoP error=\"use_dpop_nonce\", Bearer")
        #expect(headers["set-cookie"] == "a=1" && headers["vary"] == "Origin" && headers["content-type"] == "text/plain")
        let challenges = TransportResponse(status: 401, headers: headers).challenges
        #expect(challenges.map(\.scheme) == ["Basic", "DPoP", "Bearer"] && challenges[1].error == "use_dpop_nonce")
    }
}
