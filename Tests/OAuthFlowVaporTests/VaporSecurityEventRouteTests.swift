import Foundation
import OAuthFlow
import OAuthFlowSecurityEvents
import OAuthFlowTestSupport
import OAuthFlowVapor
import Testing
import VaporTesting

/// The Vapor route a transmitter pushes security events to: 202 for an event taken (its session ended) and for its
/// replay a moment later (a duplicate), 400 for a token that is none or a body past 64 KiB, each with `Cache-Control: no-store`.
@Suite struct VaporSecurityEventRouteTests {
    @Test func theRouteActsOnAnEventAndRefusesWhatFailsACheck() async throws {
        let simulated = try SimulatedProvider()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = SimulatedProvider.DescriptorOptions()
        options.extra = "security_events:\n  format: ssf\n"
        try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [directory.url], includeBundledProviders: false,
                clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)], store: InMemoryTokenStore(),
                environment: simulated.environment))
        let key = SessionKey(providerID: "simulated", account: "phone")
        _ = try await oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect)
            .run(Simulated.Approving(simulated: simulated, subject: "user-ada"), account: "phone", in: oauth.store)
        let receiver = try oauth.securityEventReceiver(for: "simulated")
        let token = try await simulated.securityEventToken(
            "https://schemas.openid.net/secevent/caep/event-type/session-revoked",
            subject: ["format": .string("iss_sub"), "iss": .string(simulated.issuer.absoluteString), "sub": .string("user-ada")])
        try await withApp(configure: { app in app.addSecurityEventRoute("/security-events/simulated", receiver: receiver) }) { app in
            let tester = try app.testing()
            let headers: HTTPHeaders = ["Content-Type": "application/secevent+jwt"]
            let large = try await tester.sendRequest(
                .POST, "/security-events/simulated", headers: headers, body: ByteBuffer(string: token + String(repeating: "p", count: 70_000)))
            #expect(large.status == .badRequest && large.headers.first(name: .cacheControl) == "no-store")
            #expect(try await oauth.store.load(key) != nil)
            let taken = try await tester.sendRequest(.POST, "/security-events/simulated", headers: headers, body: ByteBuffer(string: token))
            #expect(taken.status == .accepted && taken.body.readableBytes == 0)
            #expect(try await oauth.store.load(key) == nil)
            let replayed = try await tester.sendRequest(.POST, "/security-events/simulated", headers: headers, body: ByteBuffer(string: token))
            #expect(replayed.status == .accepted && replayed.body.readableBytes == 0, "a delivery of an event received a moment ago is a duplicate, acknowledged")
            let forged = try await tester.sendRequest(.POST, "/security-events/simulated", headers: headers, body: ByteBuffer(string: "not.a-jwt"))
            #expect(forged.status == .badRequest && forged.body.string.contains("\"err\""))
        }
    }
}
