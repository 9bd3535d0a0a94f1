import Foundation
import OAuthFlow

extension OAuth {
    /// A receiver of the security events the provider `name` sends (its descriptor's `security_events`): pushed to a
    /// route, polled, or Sign in with Apple's notifications. It acts on the sessions of this configuration's store,
    /// which every instance must share.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - audiences: The `aud` an event must name; by default the provider's client id in this configuration. When
    ///     given, the configuration needs no client for the provider (a receiver that has none removes the sessions an
    ///     event ends without revoking their refresh tokens).
    ///   - replays: The `jti`s seen; share one between instances (`PostgresReplayRegistry`). By default this instance's
    ///     memory, on the configuration's clock.
    ///   - managementToken: The access token that authorizes stream management and polling at the transmitter (SSF
    ///     `authorization_schemes`); it is sent to the transmitter's own origin only.
    ///   - pushAuthorization: The `Authorization` header value a stream pushes with (given as its
    ///     `authorization_header` when it was created): a push without it is refused. Nil for transmitters that send
    ///     none (Apple, Google).
    ///   - resolveSubject: The subject (`sub`) the provider issued to the user an `email`, `opaque` (unless the
    ///     descriptor says `opaque_subjects: sub`) or other subject names, when the host knows it; nil for nobody (the
    ///     default). Asked for every event about a user whose subject is not a `sub` of the provider's issuer, whatever
    ///     the event does; what it answers is the outcome's `subject`. A resolver that throws answers the delivery 503.
    ///   - handler: Every accepted event, after the receiver acted on it.
    /// - Throws: ``SecurityEventError`` `configuration` when the descriptor has no `security_events` or the store
    ///   cannot list sessions (a `SessionDirectory`); `ProviderError`, `ClientSettingsError`.
    public func securityEventReceiver(
        for name: String, audiences: Set<String>? = nil, replays: (any ReplayRegistry)? = nil,
        managementToken: (@Sendable () async throws -> Secret)? = nil, pushAuthorization: Secret? = nil,
        resolveSubject: @escaping @Sendable (SecurityEvent.Subject) async throws -> String? = { _ in nil },
        handler: @escaping @Sendable (SecurityEventReceiver.Outcome) async -> Void = { _ in }
    ) throws -> SecurityEventReceiver {
        let provider = try provider(name)
        guard let policy = provider.policy.securityEvents else {
            throw SecurityEventError(.configuration, "the descriptor of \(name) has no `security_events`: it names no transmitter")
        }
        guard let sessions = store as? any SessionDirectory else {
            throw SecurityEventError(.configuration, "the session store cannot list a user's sessions (it is no SessionDirectory)")
        }
        // With its audiences given, a receiver needs no client: without one, the sessions an event ends are removed
        // unrevoked (a refresh token is revoked only with the client that holds it).
        let settings = try audiences == nil ? clientSettings(for: name) : (try? clientSettings(for: name)) ?? ClientSettings(clientID: "")
        let audiences = audiences ?? [settings.clientID]
        guard !audiences.isEmpty else { throw SecurityEventError(.configuration, "no audience: an event must be addressed to someone") }
        return SecurityEventReceiver(
            client: client(of: provider, configuration: settings.configuration(redirectURI: nil)), policy: policy, sessions: sessions,
            audiences: audiences, replays: replays ?? InMemoryReplayRegistry(clock: environment.clock), managementToken: managementToken,
            pushAuthorization: pushAuthorization, resolveSubject: resolveSubject,
            handler: { [self] outcome in
                // This instance's managers see the change at once; another instance's at its next read of the store.
                forgetManagers(of: outcome.ended + outcome.marked)
                await handler(outcome)
            })
    }
}
