import Foundation
import Logging

/// Runs the authorization code flow with PKCE against one resolved provider.
///
/// ```swift
/// let provider = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])
/// let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
///     clientID: "abc", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
/// let pending = try await client.startAuthorization()
/// // open pending.url in the browser; receive the redirect
/// let tokens = try await client.finishSignIn(.callback(redirectURL), pending: pending).tokens
/// let me = try await client.userInfo(tokens)
/// ```
///
/// The client is an actor so that a pending authorization completes at most once,
/// however many callbacks arrive.
public actor OAuthClient {
    public nonisolated let provider: Provider
    public nonisolated let configuration: ClientConfiguration
    /// What the client sends with, timestamps with and logs to; every ``TokenManager`` made for it uses the same.
    public nonisolated let environment: OAuthEnvironment
    var transport: any HTTPTransport { environment.transport }
    var logger: Logger { environment.logger }
    var clock: any DateClock { environment.clock }
    /// Where the client's metrics and spans go.
    var instruments: Instruments { environment.instruments }
    /// The latest DPoP nonce of each server (RFC 9449 §8).
    var nonces: DPoPNonces { environment.nonces }
    /// States of completed authorizations, with when they completed; pruned after ``completedStateMemory``.
    private var completedStates: [String: Date] = [:]
    /// How long a completed state is remembered: longer than any pending authorization lives.
    static let completedStateMemory: TimeInterval = 3600
    let discovery: DiscoveryClient
    /// The provider with discovered endpoints, once discovery has run (or was not needed).
    private var complete: Provider?
    private var validator: IDTokenValidator?
    /// The client secret last signed (`client_auth.generated_secret`), and when it expires.
    private var generatedSecret: (secret: Secret, expiresAt: Date)?

    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - configuration: The registered client.
    ///   - environment: How to send requests, the clock, the logger and the servers' DPoP nonces.
    public init(provider: Provider, configuration: ClientConfiguration, environment: OAuthEnvironment = OAuthEnvironment()) {
        self.init(provider: provider, configuration: configuration, environment: environment, discovery: nil)
    }

    /// A client that reads discovery documents through `discovery`, the cache `OAuth` keeps for each provider, so
    /// that every client it makes for one provider fetches the document once; nil makes a cache of its own.
    package init(provider: Provider, configuration: ClientConfiguration, environment: OAuthEnvironment, discovery: DiscoveryClient?) {
        self.provider = provider
        self.configuration = configuration
        self.environment = environment
        self.discovery = discovery ?? Self.discoveryClient(for: provider.id, environment: environment)
    }

    /// A discovery cache for the provider `id`, its requests counted as that provider's discovery requests.
    package static func discoveryClient(for id: String, environment: OAuthEnvironment) -> DiscoveryClient {
        DiscoveryClient(
            transport: environment.instruments.transport(environment.transport, provider: id, endpoint: .discovery), clock: environment.clock)
    }

    /// An endpoint: the descriptor's, or, when it names none and asks for discovery, the discovery document's.
    ///
    /// - Throws: ``FlowError`` `missingEndpoint` saying where it was looked for.
    func endpoint(_ slot: KeyPath<Provider.Endpoints, URL?>, _ name: String) async throws -> URL {
        if let url = provider.endpoints[keyPath: slot] { return url }
        guard provider.usesDiscovery else {
            throw FlowError(
                .missingEndpoint, "provider `\(provider.id)` has no \(name) endpoint: its descriptor names none and does not use discovery")
        }
        guard let url = try await discoveredProvider().endpoints[keyPath: slot] else {
            throw FlowError(
                .missingEndpoint,
                "provider `\(provider.id)` has no \(name) endpoint: neither its descriptor nor its discovery document (\(provider.discoveryURL?.absoluteString ?? "")) names one"
            )
        }
        return url
    }

    /// The revocation endpoint: the descriptor's, the discovery document's, or, when an OpenID
    /// discovery document names none, the issuer's RFC 8414 metadata's (asked for only here).
    public func revocationEndpoint() async throws -> URL? {
        if let url = provider.endpoints.revocation { return url }
        guard provider.usesDiscovery else { return nil }
        let discovered = try await discoveredProvider()
        if let url = discovered.endpoints.revocation { return url }
        let completed = await discovered.completingRevocation(with: discovery, logger: logger)
        complete = completed
        return completed.endpoints.revocation
    }

    /// The device authorization endpoint, from the descriptor or discovery.
    func deviceEndpoint() async throws -> URL {
        try await endpoint(\.deviceAuthorization, "device authorization")
    }

    /// The provider with every endpoint discovery adds: discovery runs at most once per client (the
    /// provider it was given, when that was already discovered or needs no discovery).
    public func discoveredProvider() async throws -> Provider {
        if let complete { return complete }
        let discovered = try await provider.discovered(with: discovery, logger: logger)
        complete = discovered
        return discovered
    }

    /// The ID token validator, given the discovered provider when the JWKS endpoint comes from discovery
    /// (the document this client already fetched: it is never fetched twice).
    func idTokenValidator() async throws -> IDTokenValidator {
        if let validator { return validator }
        let keysFrom = provider.endpoints.jwks == nil ? try await discoveredProvider() : provider
        let created = IDTokenValidator(
            provider: keysFrom, clientID: configuration.clientID, clientSecret: configuration.clientSecret,
            transport: instruments.transport(transport, provider: provider.id, endpoint: .jwks), clock: clock)
        validator = created
        return created
    }

    /// Remembers a completed state; states older than ``completedStateMemory`` are forgotten,
    /// so a long-lived client (a web server's) does not grow without bound.
    func rememberCompleted(_ state: String) {
        let now = clock.now()
        if completedStates.count >= 1024 {
            completedStates = completedStates.filter { now.timeIntervalSince($0.value) < Self.completedStateMemory }
        }
        completedStates[state] = now
    }

    /// The provider as far as this client knows it: with the discovered endpoints once discovery has run.
    var knownProvider: Provider { complete ?? provider }

    /// Whether the authorization with `state` was completed by this client (and not yet forgotten).
    func hasCompleted(_ state: String) -> Bool { completedStates[state] != nil }

    /// The client secret last signed (`client_auth.generated_secret`), kept for reuse, and when it expires.
    var lastGeneratedSecret: (secret: Secret, expiresAt: Date)? {
        get { generatedSecret }
        set { generatedSecret = newValue }
    }
}
