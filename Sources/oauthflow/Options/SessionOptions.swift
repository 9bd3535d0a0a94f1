#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

/// Options for commands that use a stored session.
struct SessionOptions: ParsableArguments {
    @Argument(help: "The provider id.")
    var name: String

    @Option(help: "The account name, when one provider holds several sessions.")
    var account: String = "default"

    @OptionGroup var credential: ClientCredentialOptions

    @OptionGroup var registryOptions: RegistryOptions

    var key: SessionKey { SessionKey(providerID: name, account: account) }

    /// What the flags say about the client; the client id and variables are the session's.
    var overrides: ClientSettings.Overrides {
        credential.overrides()
    }

    /// The `login` command that signs this session in again, with its client id, variables and account.
    func signInAgain(_ session: StoredSession, extra: [String] = []) -> LoginCommand {
        var command = LoginCommand(session: session, secretEnvironment: credential.secretEnvironment, extra: extra)
        command.providerDirectories = registryOptions.providerDirectories
        // A secret the environment or the clients file gives for this client needs no flag.
        if credential.secretEnvironment == nil, secretSource(for: session) != nil { command.secretEnvironment = nil }
        return command
    }

    /// What to do after `error` on `session`: after a refresh the provider refused, the exact command that
    /// signs in again; after a refused client, where the secret came from.
    func advice(_ error: any Error, session: StoredSession) -> String? {
        Advice.credential(error, signingIn: false) ?? Advice.clientAuthentication(error, secretSource: secretSource(for: session))
            ?? Advice.afterRefresh(error, signIn: signInAgain(session))
    }

    private func secretSource(for session: StoredSession) -> ClientSettings.SecretSource? {
        (try? CommandEnvironment.clients.settings(for: session, overrides: overrides))?.secretSource
    }

    /// The stored session, or a failure that says how to sign in.
    func stored(store: FileTokenStore = CommandEnvironment.store) async throws -> StoredSession {
        guard let session = try await store.load(key) else {
            // An unknown provider (with the nearest names), a descriptor that does not load or a directory that cannot be
            // read is said as such, not as a missing sign-in; each variable the provider needs and nothing gives goes
            // into the command shown, as --var NAME=VALUE.
            let oauth = registryOptions.oauth()
            var needed: [String: String] = [:]
            for _ in 0..<16 {
                do {
                    _ = try oauth.provider(key.providerID, variables: needed)
                    break
                } catch let error as ProviderError where error.code == .missingVariable {
                    guard let name = error.variable, needed[name] == nil else { break }
                    needed[name] = "VALUE"
                } catch let error as ProviderError where error.code == .invalidVariable || error.code == .invalidURL {
                    break  // the stand-in VALUE does not fit a pattern or a URL: the names found so far are shown
                }
            }
            // A login that no variable or clients file names a client for needs --client-id: the command shows it.
            var needsClientID = false
            do { _ = try CommandEnvironment.clients.settings(for: key.providerID) } catch let error as ClientSettingsError {
                needsClientID = error.code == .missingClientID
            } catch {}
            var signIn = LoginCommand(
                provider: key.providerID, account: key.account, clientID: needsClientID ? "CLIENT_ID" : nil, variables: needed)
            signIn.providerDirectories = registryOptions.providerDirectories
            throw CommandFailure("no stored session for \(key); sign in with `\(signIn.text)` first")
        }
        return session
    }

    /// Runs `work` with the session's token manager, from the front door (its access token made valid first when
    /// `validToken`): the session's client id and variables, with the secret and method from the flags, the
    /// environment or the clients file, as `login` resolves them.
    ///
    /// A failure to load the session is printed as it is; a failure after that with what to do next
    /// (``advice(_:session:)``). Either exits 1.
    func withManager<Value>(validToken: Bool = false, _ work: (TokenManager, StoredSession, Provider) async throws -> Value) async throws -> Value {
        try await withOAuth { oauth, session in
            let manager = try await oauth.session(name, account: account)
            if validToken { _ = try await manager.validAccessToken() }
            return try await work(manager, session, manager.provider)
        }
    }

    /// Runs `work` with the front door, its client settings for this provider those of the stored session (see
    /// ``withManager(validToken:_:)``), and the session as stored; failures as there.
    func withOAuth<Value>(_ work: (OAuth, StoredSession) async throws -> Value) async throws -> Value {
        let (session, oauth) = try await Output.running {
            let session = try await stored()
            // The provider first: a descriptor that is missing (a forgotten --providers-dir) is said as it is, ahead of
            // anything the client settings lack.
            let oauth = registryOptions.oauth(overrides: [name: overrides])
            _ = try oauth.resolve(name, variables: session.variables)
            // The session's client id and variables, with the secret and method as the flags, the environment or the
            // clients file give them for that client (the resolver's overrides are the flags): its manager is made now.
            _ = try await oauth.session(name, account: account)
            return (session, oauth)
        }
        let hint = { (error: any Error) in advice(error, session: session) }
        return try await Output.running(advice: hint) { try await work(oauth, session) }
    }
}
#endif
