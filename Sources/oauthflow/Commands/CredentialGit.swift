#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand.Credential {
    struct Git: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "git",
            abstract: "git's credential helper: `git config --global credential.https://HOST.helper \"!oauthflow credential git\"`.",
            discussion: """
                Reads git's key=value request on stdin. For a remote that `credential_helpers.git` in clients.yaml maps \
                to a provider, `get` answers a valid access token (refreshing it, or signing in through the browser or \
                the device flow when there is no session; prompts go to stderr), `erase` forgets that session, and `store` \
                has nothing to do. Remotes it does not map get no answer, so git asks its next helper.
                """)

        @Argument(help: "The operation git asks for: get, store or erase.")
        var operation: String

        @OptionGroup var registryOptions: RegistryOptions

        func run() async throws {
            try await Output.running(prefix: "oauthflow: ") {
                let request = try GitCredentialRequest(parsing: String(decoding: try await StandardInput.read(atMost: 64 * 1024 + 1), as: UTF8.self))
                let resolver = CommandEnvironment.clients
                let identity = GitCredentialRequest.identity(ofClientsFile: resolver.clientsFileURL.path)
                let mapping = try resolver.gitCredentialMappings().first { $0.matches(request.attributes) }
                // What was decided, for the launcher to answer this request again without clients.yaml. Only
                // for the default store and providers, which are what the launcher reads.
                let remember = { (mapping: ClientSettingsResolver.GitCredentialMapping?, session: StoredSession?) in
                    guard registryOptions.providerDirectories.isEmpty else { return }
                    request.remember(
                        answeredBy: mapping, session: session, clientsFile: resolver.clientsFileURL.path, identity: identity,
                        store: CommandEnvironment.store)
                }
                // Not ours: say nothing, so git moves on to its next helper.
                guard let mapping else {
                    remember(nil, nil)
                    return
                }
                let key = SessionKey(providerID: mapping.provider, account: mapping.account ?? "default")
                switch operation {
                case "get":
                    let record = SessionOriginRecord(
                        providerID: key.providerID, environment: CommandEnvironment.variables,
                        otherDirectories: !registryOptions.providerDirectories.isEmpty)
                    let session = try await registryOptions.oauth().bearerSession(
                        key.providerID, account: key.account, variables: mapping.variables ?? [:], tool: "git",
                        browser: OAuthFlowCommand.Credential.browser, events: OAuthFlowCommand.Credential.report)
                    Output.stdoutExact(
                        try GitCredentialRequest.answer(
                            username: mapping.username ?? "oauth2", password: session.tokens.accessToken,
                            expiresAt: session.tokens.expiresAt))
                    remember(mapping, session)
                    record.remember(session, store: CommandEnvironment.store)
                case "erase":
                    // Under the store's lock: a refresh under way in another process finishes first, and is not
                    // written back after the removal.
                    let store = CommandEnvironment.store
                    let lock = try await store.lock(key)
                    defer { lock.release() }
                    try await store.remove(key)
                default:
                    break  // `store`: the token already lives in the session; git-credential(1): unknown operations are ignored.
                }
            }
        }
    }
}
#endif
