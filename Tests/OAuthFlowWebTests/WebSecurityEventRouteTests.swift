import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowSecurityEvents
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// The Hummingbird route a transmitter pushes security events to: an event taken is 202 and ends the session it
/// names; a refused one is 400 with RFC 8935's error object; a body past 64 KiB is refused unread; a push without the
/// stream's Authorization header is 401.
@Suite struct WebSecurityEventRouteTests {
    /// The transmitter: OAuthFlowTesting's simulated provider (this target has a `SimulatedProvider` of its own).
    typealias Transmitter = OAuthFlowTesting.SimulatedProvider

    static let revoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"

    struct Fixture {
        let simulated: Transmitter
        let oauth: OAuth
        let directory: TemporaryDirectory

        init() throws {
            simulated = try Transmitter()
            directory = try TemporaryDirectory()
            var options = Transmitter.DescriptorOptions()
            options.extra = "security_events:\n  format: ssf\n"
            try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
            oauth = OAuth(
                OAuth.Configuration(
                    providerDirectories: [directory.url], includeBundledProviders: false,
                    clients: ["simulated": ClientSettings(clientID: Transmitter.appClientID)], store: InMemoryTokenStore(),
                    environment: simulated.environment))
        }

        func token(_ subject: String) async throws -> String {
            try await simulated.securityEventToken(
                WebSecurityEventRouteTests.revoked,
                subject: ["format": .string("iss_sub"), "iss": .string(simulated.issuer.absoluteString), "sub": .string(subject)])
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theRouteActsOnAnEventAndRefusesWhatFailsACheck() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.cleanUp() }
        let run = try fixture.oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect)
        _ = try await run.run(Simulated.Approving(simulated: fixture.simulated, subject: "user-ada"), account: "phone", in: fixture.oauth.store)
        let router = Router()
        router.addSecurityEventRoute("/security-events/simulated", receiver: try fixture.oauth.securityEventReceiver(for: "simulated"))
        router.addSecurityEventRoute(
            "/guarded", receiver: try fixture.oauth.securityEventReceiver(for: "simulated", pushAuthorization: Secret("Bearer stream-secret")))
        let pushed: HTTPFields = [.contentType: "application/secevent+jwt"]
        let token = try await fixture.token("user-ada")
        try await Application(router: router).test(.router) { client in
            let large = try await client.execute(
                uri: "/security-events/simulated", method: .post, headers: pushed,
                body: ByteBuffer(string: token + String(repeating: "p", count: 70_000))
            ) { ($0.status, String(buffer: $0.body)) }
            #expect(large.0 == .badRequest && large.1.contains("invalid_request"))
            let unauthorized = try await client.execute(
                uri: "/guarded", method: .post, headers: pushed + [.authorization: "Bearer guess"], body: ByteBuffer(string: token)
            ) { $0.status }
            #expect(unauthorized == .unauthorized)
            #expect(try await fixture.oauth.store.load(SessionKey(providerID: "simulated", account: "phone")) != nil, "nothing ended by a refusal")

            let taken = try await client.execute(uri: "/security-events/simulated", method: .post, headers: pushed, body: ByteBuffer(string: token)) {
                ($0.status, $0.headers[.cacheControl], $0.body.readableBytes)
            }
            #expect(taken.0 == .accepted && taken.1 == "no-store" && taken.2 == 0)
            #expect(try await fixture.oauth.store.load(SessionKey(providerID: "simulated", account: "phone")) == nil)
            let replayed = try await client.execute(
                uri: "/security-events/simulated", method: .post, headers: pushed, body: ByteBuffer(string: token)
            ) {
                ($0.status, $0.headers[.contentType], String(buffer: $0.body))
            }
            #expect(replayed.0 == .accepted && replayed.2.isEmpty, "a delivery of an event received a moment ago is a duplicate, acknowledged")
            #expect(try await fixture.oauth.store.load(SessionKey(providerID: "simulated", account: "phone")) == nil)
            let forged = try await client.execute(
                uri: "/security-events/simulated", method: .post, headers: pushed, body: ByteBuffer(string: "not.a-jwt")
            ) { ($0.status, $0.headers[.contentType], String(buffer: $0.body)) }
            #expect(forged.0 == .badRequest && forged.1 == "application/json")
            let error = try JSONDecoder().decode([String: String].self, from: Data(forged.2.utf8))
            #expect(error["err"] == "invalid_request")
        }
    }
}
