import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The simulated provider over HTTP on 127.0.0.1: its metadata, a whole code flow with a real HTTP client (the
/// authorization endpoint consenting with a redirect), userinfo, a pushed request, a body over the limit, and nothing
/// listening once stopped.
@Suite struct SimulatedProviderServerTests {
    let http = DefaultHTTPTransport(timeout: 10)

    @Test func servesACodeFlowOverHTTP() async throws {
        let server = try await SimulatedProviderServer.start(subject: "alice")
        let issuer = server.provider.issuer
        #expect(issuer.absoluteString == "http://127.0.0.1:\(server.port)")

        let metadata = try await http.send(
            TransportRequest(method: .get, url: issuer.appendingPathComponent(".well-known/openid-configuration")))
        #expect(metadata.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: metadata.body) as? [String: Any])
        #expect(document["issuer"] as? String == issuer.absoluteString)
        #expect(document["token_endpoint"] as? String == issuer.absoluteString + "/token")
        #expect(document["mtls_endpoint_aliases"] == nil, "no mtls. host can be named for 127.0.0.1")

        // The engine over real HTTP: the authorization URL answered with the redirect back, the code exchanged.
        let environment = OAuthEnvironment(transport: http, clock: server.provider.clock)
        let client = OAuthClient(
            provider: try server.provider.provider(),
            configuration: ClientConfiguration(
                clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI, scopes: ["openid", "profile"]),
            environment: environment)
        let pending = try await client.startAuthorization()
        let consent = try await http.send(TransportRequest(method: .get, url: pending.url))
        #expect(consent.status == 302)
        let callback = try #require(consent.header("Location").flatMap(URL.init(string:)))
        #expect(callback.absoluteString.hasPrefix(SimulatedProvider.appRedirectURI.absoluteString))
        let tokens = try await client.finishSignIn(.callback(callback), pending: pending).tokens
        #expect(!tokens.accessToken.value.isEmpty)
        let user = try await client.userInfo(tokens)
        #expect(user["sub"] == .string("alice"))

        // A pushed request (RFC 9126) over HTTP too.
        var options = SimulatedProvider.DescriptorOptions()
        options.pushesAuthorizationRequests = true
        let pushing = OAuthClient(
            provider: try server.provider.provider(options),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI, scopes: ["openid"]),
            environment: environment)
        let pushed = try await pushing.startAuthorization()
        #expect(pushed.url.query?.contains("request_uri=") == true)
        let pushedConsent = try await http.send(TransportRequest(method: .get, url: pushed.url))
        #expect(pushedConsent.status == 302)

        await server.stop()
        await #expect(throws: TransportError.self) {
            _ = try await DefaultHTTPTransport(timeout: 2).send(TransportRequest(method: .get, url: issuer.appendingPathComponent("jwks")))
        }
    }

    /// Stopped twice at once and once more after: each call returns once the server is down, and the event loop is
    /// shut down once (under `SWIFTNIO_STRICT`, which scripts/test.sh sets, a task scheduled on it after would crash
    /// the run; without it SwiftNIO only prints an error).
    @Test func stoppedTwiceItStopsOnce() async throws {
        let server = try await SimulatedProviderServer.start()
        let jwks = server.provider.issuer.appendingPathComponent("jwks")
        #expect(try await http.send(TransportRequest(method: .get, url: jwks)).status == 200)
        async let first: Void = server.stop()
        async let second: Void = server.stop()
        _ = await (first, second)
        await server.stop()
        await #expect(throws: TransportError.self) { try await http.send(TransportRequest(method: .get, url: jwks)) }
    }

    @Test func refusesWhatItCannotAnswer() async throws {
        let server = try await SimulatedProviderServer.start()
        defer { Task { await server.stop() } }
        let issuer = server.provider.issuer
        let large = try await http.send(
            TransportRequest(method: .post, url: issuer.appendingPathComponent("token"), body: Data(count: (1 << 20) + 1)))
        #expect(large.status == 413)
        let unknown = try await http.send(TransportRequest(method: .get, url: issuer.appendingPathComponent("nothing-here")))
        #expect(unknown.status == 404)
        // An authorization request the provider cannot redirect (an unknown client) is a 400 with a sentence, not a redirect.
        let url = try #require(URL(string: issuer.absoluteString + "/authorize?client_id=nobody&response_type=code"))
        let refused = try await http.send(TransportRequest(method: .get, url: url))
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("cannot answer"))
        await server.stop()
    }
}
