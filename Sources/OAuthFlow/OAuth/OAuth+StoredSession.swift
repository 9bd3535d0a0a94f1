import Foundation

extension OAuth {
    /// The stored session of `name` and `account` while its access token stays valid for `skew` more seconds, once
    /// it has passed the one check every stored token passes before this library hands it out or sends it.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name.
    ///   - skew: How long the access token must stay valid (default 60 s).
    /// - Returns: The session; nil when none is stored or its access token expires within `skew` (its manager,
    ///   ``session(_:account:)``, refreshes it).
    /// - Throws: ``SessionError`` `session_mismatch` when another authorization server issued the tokens (nothing is
    ///   handed out; sign in again), `reauthentication_required` when a security event
    ///   marked the session for a new sign-in; ``ProviderError`` when the provider cannot be
    ///   resolved; store errors.
    public func storedSession(_ name: String, account: String = "default", validFor skew: TimeInterval = 60) async throws -> StoredSession? {
        try await storedSession(name, account: account, meaning: nil, validFor: skew)
    }

    /// ``storedSession(_:account:validFor:)`` for a caller that means the provider's variables `variables` (over the
    /// client settings'), as a sign-in it would start: the session is refused when it was signed in with other values
    /// of them (``requireMeant(_:variables:)``). Nil `variables`: the session's own are meant.
    package func storedSession(
        _ name: String, account: String, meaning variables: [String: String]?, validFor skew: TimeInterval = 60
    ) async throws -> StoredSession? {
        guard let stored = try await store.load(SessionKey(providerID: name, account: account)) else { return nil }
        try requireOrigin(of: stored)
        if let variables { try requireMeant(stored, variables: variables) }
        try stored.requireNoReauthentication()
        guard !stored.tokens.isExpired(at: environment.clock.now(), skew: skew) else { return nil }
        return stored
    }

    /// Refuses `session` unless the provider, as this configuration resolves it now, names the authorization server
    /// and the servers that issued its tokens (``StoredSession/mismatch(with:clientID:)``): what
    /// ``storedSession(_:account:validFor:)`` and every ``TokenManager`` check. A session is
    /// used with its own client, whatever client the configuration names for new sign-ins (a user may have signed in
    /// with another `--client-id`): that client's secret goes only with its own id (``settings(for:)``), and a
    /// ``TokenManager`` made by a host for another client refuses the session.
    ///
    /// - Throws: ``SessionError`` `session_mismatch`; ``ProviderError`` when the provider cannot be resolved.
    package func requireOrigin(of session: StoredSession) throws {
        // The variables and client id the session's manager would use (`settings(for:)`); a secret that cannot be
        // read does not matter to the check.
        let settings = (try? settings(for: session)) ?? ClientSettings(clientID: session.clientID, variables: session.variables)
        let provider = try resolve(session.key.providerID, variables: settings.variables)
        try session.requireOrigin(provider, clientID: settings.clientID)
    }

    /// Refuses `session` to a caller that means other values of the provider's variables than it was signed in with:
    /// those a sign-in by that caller would use, the client settings' (a clients-file entry's, read without its secret)
    /// with `variables` over them and the descriptor's defaults for the rest (a git mapping's `host`, kubectl's
    /// `--var realm=`, gitlab's default `gitlab.com`). Such a session was issued by another tenant or server than the
    /// one the caller is about to send its token to. A variable the session does not record is not compared.
    ///
    /// - Throws: ``SessionError`` `session_mismatch`, naming the variable and where its value came from; nothing was sent.
    package func requireMeant(_ session: StoredSession, variables: [String: String]) throws {
        let name = session.key.providerID
        let configured = configuredVariables(for: name)
        let asked = configured.merging(variables) { _, given in given }
        // The descriptor's defaults too, as a sign-in resolves them; one that cannot resolve yet (a variable required
        // and not given) is compared as asked.
        let meant = (try? resolve(name, variables: asked))?.variables ?? asked
        for variable in meant.keys.sorted() {
            guard let recorded = session.variables[variable], let value = meant[variable], recorded != value else { continue }
            let source =
                variables[variable] != nil
                ? "given by the caller: a git mapping's `variables`, kubectl's `--var`"
                : configured[variable] != nil ? "the client settings': the clients file's entry" : "the descriptor's default"
            throw SessionError(
                .sessionMismatch,
                "the stored session \(session.key) cannot be used here: it was signed in with \(TerminalText.escaped(variable))=\(TerminalText.escaped(recorded)), and \(TerminalText.escaped(value)) is meant here (\(source)): another tenant or server. Nothing was sent; sign in with that value, under another account name to keep both"
            )
        }
    }

    /// The variables the configuration gives `name`'s client: ``Configuration/clients``' entry, else the resolver's
    /// (without resolving a secret, whose absence does not change which server is meant).
    func configuredVariables(for name: String) -> [String: String] {
        if let settings = configuration.clients[name] { return settings.variables }
        return (try? configuration.clientSettings?.variables(for: name)) ?? [:]
    }
}
