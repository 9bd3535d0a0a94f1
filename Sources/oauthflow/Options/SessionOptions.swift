import ArgumentParser
import Foundation
import OAuthFlow

/// Options for commands that use a stored session.
struct SessionOptions: ParsableArguments {
    @Argument(help: "The provider id.")
    var name: String

    @Option(help: "The account name, when one provider holds several sessions.")
    var account: String = "default"

    @Option(name: .customLong("client-secret-env"), help: "An environment variable holding the client secret, for confidential clients.")
    var clientSecretEnvironment: String?

    @Option(name: .customLong("client-auth"), help: "How the client authenticates: none, client_secret_basic or client_secret_post (default: chosen from the provider).")
    var clientAuth: String?

    @OptionGroup var registryOptions: RegistryOptions

    var key: SessionKey { SessionKey(providerID: name, account: account) }

    func validate() throws {
        _ = try ClientSettings.parseAuthMethod(clientAuth)
    }

    /// The `login` command that signs this session in again, with its client id, variables and account.
    func signInAgain(_ session: StoredSession, extra: [String] = []) -> LoginCommand {
        var command = LoginCommand(session: session, secretEnvironment: clientSecretEnvironment, extra: extra)
        // A secret the environment or the clients file gives for this client needs no flag.
        if clientSecretEnvironment == nil, (try? secretSource(for: session)) ?? nil != nil { command.secretEnvironment = nil }
        return command
    }

    /// Prints `error` with what to do next, and returns exit 1: after a refresh the provider refused, the
    /// exact command that signs in again; after a refused client, where the secret came from.
    func fail(_ error: any Error, session: StoredSession?) -> ExitCode {
        var advice: String?
        if let session {
            advice = Advice.clientAuthentication(error, secretSource: try? secretSource(for: session))
                ?? Advice.afterRefresh(error, signIn: signInAgain(session))
        }
        return Output.fail(error, advice: advice)
    }

    private func secretSource(for session: StoredSession) throws -> String? {
        try ClientSettings.settings(id: session.clientID, provider: session.key.providerID, secretEnvironment: clientSecretEnvironment,
                                    clientAuth: clientAuth).secretSource
    }

    /// The stored session and its resolved provider.
    func load(store: FileTokenStore = FileTokenStore()) async throws -> (StoredSession, Provider) {
        guard let session = try await store.load(key) else {
            throw SessionError.notSignedInMessage(key)
        }
        return (session, try registryOptions.descriptor(named: session.key.providerID).resolve(session.variables))
    }

    /// The stored session's provider, client and token manager.
    func manager(store: FileTokenStore = FileTokenStore()) async throws -> (TokenManager, StoredSession, Provider) {
        let (session, provider) = try await load(store: store)
        return (TokenManager(client: try client(for: session, provider: provider), store: store, key: key), session, provider)
    }

    /// The session's manager once its access token is valid (refreshed when it had expired). A failure is
    /// printed, with the command that signs in again when the provider refused the refresh, and thrown as
    /// the exit code.
    func validManager(store: FileTokenStore = FileTokenStore()) async throws -> (TokenManager, StoredSession, Provider) {
        let loaded: (TokenManager, StoredSession, Provider)
        do {
            loaded = try await manager(store: store)
        } catch {
            throw Output.fail(error)
        }
        do {
            _ = try await loaded.0.validAccessToken()
        } catch {
            throw fail(error, session: loaded.1)
        }
        return loaded
    }

    /// A client for the session: its client id, and the secret and method from flags, the environment
    /// or the clients file, as `login` resolves them.
    func client(for session: StoredSession, provider: Provider) throws -> OAuthClient {
        try ClientSettings.client(id: session.clientID, redirectURI: session.redirectURI, provider: provider,
                                  secretEnvironment: clientSecretEnvironment, clientAuth: clientAuth)
    }
}

extension SessionError {
    /// A state, not a wrong command line: exit 1 with one sentence, no usage banner.
    static func notSignedInMessage(_ key: SessionKey) -> CommandFailure {
        CommandFailure("no stored session for \(key); sign in with `\(LoginCommand(provider: key.providerID, account: key.account, clientID: nil, variables: [:], secretEnvironment: nil).text)` first")
    }
}

/// A command that cannot do its work for a reason that is not a wrong command line (exit 1, one sentence).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
