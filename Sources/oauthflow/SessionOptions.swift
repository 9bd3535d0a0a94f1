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
        CommandFailure("no stored session for \(key); sign in with `oauthflow login \(key.providerID)` first")
    }
}

/// A command that cannot do its work for a reason that is not a wrong command line (exit 1, one sentence).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
