import Crypto
import Foundation
import MetricsTestKit
import OAuthFlowTesting
import OAuthFlowWeb
import Testing

import OAuthFlow

/// The web routes count each callback once: one the engine finished (or refused) as the engine counts every sign-in,
/// with its code, and the refusals of their own checks with the code their page shows (no pending cookie, a provider
/// that is not enabled, whose name is never a label).
@Suite struct WebSignInMetricsTests {
    static let origin = URL(string: "https://app.example.com")!
    static let key = try! SessionKeyring.Key(id: "web-1", key: SymmetricKey(size: .bits256))

    @Test func eachCallbackIsCountedOnceWithThePagesCode() async throws {
        let simulated = try OAuthFlowTesting.SimulatedProvider()
        await simulated.register(SimulatedClient.public(id: "web-app", redirectURIs: [Self.origin.appendingPathComponent("auth/simulated/callback")]))
        let metrics = TestMetrics()
        var environment = simulated.environment
        environment.metrics = metrics
        let web = try WebSignIn(
            providers: [(try simulated.provider(), ClientSettings(clientID: "web-app"))], origin: Self.origin,
            keyring: SessionKeyring(current: Self.key), environment: environment)

        let started = await web.start("simulated")
        let location = try #require(started.headers.first { $0.name == "Location" }.flatMap { URL(string: $0.value) })
        let setCookie = try #require(started.headers.first { $0.name == "Set-Cookie" }?.value)
        let pair = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1))
        let callback = try await simulated.approve(location, subject: "subject-gina-1")
        let query = try #require(callback.query)
        let signedIn = await web.finish("simulated", callback: .init(query: query, cookies: [String(pair[0]): String(pair[1])]))
        let result = try signedIn.get()
        let again = await web.finish("simulated", callback: .init(query: query, cookies: [:]))
        let elsewhere = await web.finish("evil-provider-name", callback: .init(query: query, cookies: [:]))
        #expect(again.failureCode == "no_pending_sign_in" && elsewhere.failureCode == "unknown_provider")
        let declining = await web.start("simulated")
        let declined = try #require(declining.headers.first { $0.name == "Location" }.flatMap { URL(string: $0.value) })
        let cookie = try #require(declining.headers.first { $0.name == "Set-Cookie" }?.value.split(separator: ";").first?.split(separator: "=", maxSplits: 1))
        let denial = try #require(try await simulated.deny(declined).query)
        let refused = await web.finish("simulated", callback: .init(query: denial, cookies: [String(cookie[0]): String(cookie[1])]))
        #expect(refused.failureCode == "denied")

        func count(_ labels: [(String, String)]) -> Int64 {
            metrics.counters.filter { $0.label == "oauthflow_sign_ins_total" && $0.dimensions.elementsEqual(labels, by: ==) }.reduce(0) { $0 + $1.totalValue }
        }
        #expect(count([("provider", "simulated"), ("outcome", "success"), ("code", "none")]) == 1, "the engine does not count it again")
        #expect(count([("provider", "simulated"), ("outcome", "failure"), ("code", "no_pending_sign_in")]) == 1)
        #expect(count([("provider", "none"), ("outcome", "failure"), ("code", "unknown_provider")]) == 1)
        #expect(count([("provider", "simulated"), ("outcome", "failure"), ("code", "access_denied")]) == 1, "the engine's code")
        #expect(metrics.counters.filter { $0.label == "oauthflow_sign_ins_total" }.reduce(0) { $0 + $1.totalValue } == 4)
        let values = (metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions)).map(\.1)
        let secrets = [result.tokens.accessToken.value, result.tokens.idToken?.value, "subject-gina-1", "evil-provider-name", query]
        for value in values {
            #expect(!secrets.compactMap { $0 }.contains { value.contains($0) } && !value.contains("?"), "a label carries \(value)")
        }
    }
}

extension Result where Failure == WebSignInError {
    /// The refusal's code, when it is one.
    var failureCode: String? {
        guard case let .failure(error) = self else { return nil }
        return error.code.description
    }
}
