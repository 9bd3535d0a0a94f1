import Foundation
import OAuthFlow
import OAuthFlowTesting

/// What the unit tests that run the engine against a `SimulatedProvider` share: its app and service clients, a whole
/// sign-in kept as a stored session, and what the provider says of a token it issued.
public enum Simulated {
    /// The app's redirect URI: a loopback address, whose port the provider ignores (RFC 8252 §7.3).
    public static let redirect = URL(string: "http://127.0.0.1:8765/callback")!

    /// The public app's client at `simulated`, with the provider `options` describe, in `environment` (the provider's by default).
    public static func appClient(
        _ simulated: SimulatedProvider, _ options: SimulatedProvider.DescriptorOptions = .init(), environment: OAuthEnvironment? = nil
    ) throws -> OAuthClient {
        OAuthClient(
            provider: try simulated.provider(options),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: redirect),
            environment: environment ?? simulated.environment)
    }

    /// The confidential service client at `simulated` (`client_secret_basic`), in `environment` (the provider's by default).
    public static func serviceClient(
        _ simulated: SimulatedProvider, _ options: SimulatedProvider.DescriptorOptions = .init(), environment: OAuthEnvironment? = nil
    ) throws -> OAuthClient {
        OAuthClient(
            provider: try simulated.provider(options),
            configuration: .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret)),
            environment: environment ?? simulated.environment)
    }

    /// A whole sign-in through the engine: the authorization URL, the simulated user's approval, the callback's checks
    /// and the code exchange.
    public static func signIn(_ client: OAuthClient, at simulated: SimulatedProvider, subject: String = "user-1") async throws
        -> OAuthClient.SignInOutcome
    {
        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url, subject: subject)
        return try await client.finishSignIn(.callback(callback), pending: pending)
    }

    /// A presenter standing in for a browser or a sheet: `subject` approves the request at the simulated provider (or
    /// declines it), and the requests it was shown are recorded.
    public struct Approving: SignInRun.Presenter {
        public let simulated: SimulatedProvider
        public var subject = "user-7"
        public var denies = false
        package let shown = Locked<[PendingAuthorization]>([])

        public init(simulated: SimulatedProvider, subject: String = "user-7", denies: Bool = false) {
            self.simulated = simulated
            self.subject = subject
            self.denies = denies
        }

        public func present(_ pending: PendingAuthorization, of run: SignInRun) async throws -> OAuthClient.SignInOutcome {
            shown.withLock { $0.append(pending) }
            let callback = denies ? try await simulated.deny(pending.url) : try await simulated.approve(pending.url, subject: subject)
            return try await run.client.finishSignIn(.callback(callback), pending: pending)
        }
    }

    /// A sign-in kept as the host keeps it: the session `SignInResult.store` makes (also saved in `store` when given).
    public static func session(
        _ client: OAuthClient, at simulated: SimulatedProvider, subject: String = "user-1", account: String = "default",
        in store: (any TokenStore)? = nil
    ) async throws -> StoredSession {
        let outcome = try await signIn(client, at: simulated, subject: subject)
        return try await SignInResult.store(
            outcome, client: client, account: account, redirectURI: client.configuration.redirectURI, in: store ?? InMemoryTokenStore(),
            at: simulated.clock.now()
        ).session
    }

    /// What the provider says of `token` at its introspection endpoint (RFC 7662), asked by the service client:
    /// `active`, and for a live token its `scope`, `aud`, `iat`, `exp`, `sub`, `client_id` and `token_type`.
    public static func introspect(_ token: Secret, at simulated: SimulatedProvider) async throws -> [String: JSONValue] {
        try await serviceClient(simulated).introspect(token)
    }

    /// Whether the provider holds `token` live: issued by it, unexpired, not revoked and (a refresh token) not spent.
    public static func isActive(_ token: Secret?, at simulated: SimulatedProvider) async throws -> Bool {
        guard let token else { return false }
        return try await introspect(token, at: simulated)["active"] == .bool(true)
    }
}
