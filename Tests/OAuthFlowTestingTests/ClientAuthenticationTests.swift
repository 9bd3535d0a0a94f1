import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Client authentication at the token endpoint (RFC 6749 §2.3): `client_secret_basic`, `client_secret_post`, `none`.
@Suite struct SimulatedClientAuthenticationTests {
    static func basic(_ id: String, _ secret: String) -> String {
        "Basic " + Data("\(FormEncoding.encode(id)):\(FormEncoding.encode(secret))".utf8).base64EncodedString()
    }

    @Test func basicPostAndNoneEachWorkForTheirClient() async throws {
        let simulated = try SimulatedProvider(clients: [
            .confidential(id: "basic client", secret: "a secret+with:odd chars"),
            .confidential(id: "post-client", secret: "post-secret", authentication: .clientSecretPost),
            .public(id: "public-client"),
        ])
        let basic = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials")], headers: ["Authorization": Self.basic("basic client", "a secret+with:odd chars")])
        #expect(basic.status == 200)
        let post = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("client_id", "post-client"), ("client_secret", "post-secret")])
        #expect(post.status == 200)
        let none = try await Simulation.post(simulated, "token", [("grant_type", "client_credentials"), ("client_id", "public-client")])
        #expect(Simulation.error(none) == "unauthorized_client", "a public client has no token of its own")
    }

    @Test func aWrongSecretOrAnotherMethodIsInvalidClient() async throws {
        let simulated = try SimulatedProvider()
        let wrong = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials")], headers: ["Authorization": Self.basic(SimulatedProvider.serviceClientID, "nope")])
        #expect(wrong.status == 401 && Simulation.error(wrong) == "invalid_client")
        #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        let posted = try await Simulation.post(
            simulated, "token",
            [("grant_type", "client_credentials"), ("client_id", SimulatedProvider.serviceClientID), ("client_secret", SimulatedProvider.serviceSecret)])
        #expect(posted.status == 401, "the service registered client_secret_basic")
        let unknown = try await Simulation.post(simulated, "token", [("grant_type", "client_credentials"), ("client_id", "nobody")])
        #expect(unknown.status == 401)
    }

    @Test func twoMethodsAtOnceOrARepeatedParameterIsInvalidRequest() async throws {
        let simulated = try SimulatedProvider()
        let both = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("client_secret", SimulatedProvider.serviceSecret)],
            headers: ["Authorization": Self.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret)])
        #expect(Simulation.error(both) == "invalid_request")
        let repeated = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("grant_type", "client_credentials")],
            headers: ["Authorization": Self.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret)])
        #expect(Simulation.error(repeated) == "invalid_request")
    }
}
