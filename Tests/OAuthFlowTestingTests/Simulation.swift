import Foundation
import OAuthFlow
import OAuthFlowTesting

/// What the tests of the simulated provider share: a client of the simulated app, a whole sign-in, a form body.
enum Simulation {
    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!

    /// The public app's client at `simulated`, with the provider `options` describe.
    static func appClient(
        _ simulated: SimulatedProvider, _ options: SimulatedProvider.DescriptorOptions = .init(), scopes: [String]? = nil
    ) throws -> OAuthClient {
        OAuthClient(
            provider: try simulated.provider(options),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: redirect, scopes: scopes),
            environment: simulated.environment)
    }

    /// The confidential service client at `simulated`.
    static func serviceClient(_ simulated: SimulatedProvider, _ options: SimulatedProvider.DescriptorOptions = .init()) throws -> OAuthClient {
        OAuthClient(
            provider: try simulated.provider(options),
            configuration: .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret)),
            environment: simulated.environment)
    }

    /// A whole sign-in through the engine: the authorization URL, the user's approval, the callback checks, the code exchange.
    static func signIn(_ client: OAuthClient, at simulated: SimulatedProvider, subject: String = "user-1") async throws -> OAuthClient.SignInOutcome {
        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url, subject: subject)
        return try await client.finishSignIn(.callback(callback), pending: pending)
    }

    /// A form POST to one of the provider's endpoints, sent through its transport.
    static func post(
        _ simulated: SimulatedProvider, _ path: String, _ fields: [(String, String)], headers: [String: String] = [:]
    ) async throws -> TransportResponse {
        var all = headers
        all["Content-Type"] = "application/x-www-form-urlencoded"
        let url = simulated.issuer.appendingPathComponent(path)
        return try await simulated.transport.send(TransportRequest(method: .post, url: url, headers: all, body: Data(FormEncoding.encode(fields).utf8)))
    }

    /// The `error` member of a JSON answer.
    static func error(_ response: TransportResponse) -> String? {
        (try? JSONDecoder().decode([String: JSONValue].self, from: response.body))?["error"]?.stringValue
    }

    /// The JSON object of an answer.
    static func members(_ response: TransportResponse) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: response.body)) ?? [:]
    }

    /// The query parameters of a URL.
    static func query(_ url: URL) -> [String: String] {
        Dictionary(
            (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
    }

    /// The claims of a JWT, unverified.
    static func claims(_ jwt: String) -> [String: JSONValue] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return [:] }
        return (try? JSONDecoder().decode([String: JSONValue].self, from: data)) ?? [:]
    }
}
