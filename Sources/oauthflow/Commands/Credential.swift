import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback
import Yams

extension OAuthFlowCommand {
    struct Credential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "credential",
            abstract: "Serve other tools as a credential helper: git, and kubectl's exec plugins.",
            subcommands: [Git.self, Kubectl.self])
    }
}

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
            let environment = ProcessInfo.processInfo.environment
            let request: GitCredentialRequest
            let mapping: GitCredentialMapping?
            do {
                request = try GitCredentialRequest(parsing: String(decoding: Self.readStandardInput(), as: UTF8.self))
                mapping = GitCredentialMapping.first(in: try ClientSettings.gitMappings(environment: environment), for: request)
            } catch {
                throw Output.fail(error)
            }
            // Not ours: say nothing, so git moves on to its next helper.
            guard let mapping else { return }
            let key = SessionKey(providerID: mapping.provider, account: mapping.account ?? "default")
            let store = FileTokenStore()
            do {
                switch operation {
                case "get":
                    let session = try await CredentialSession.validSession(for: key, variables: mapping.variables, store: store,
                                                                           registry: registryOptions, environment: environment)
                    Output.stdoutExact(try GitCredentialRequest.answer(username: mapping.username ?? "oauth2", password: session.tokens.accessToken,
                                                                       expiresAt: session.tokens.expiresAt))
                case "erase":
                    try await store.remove(key)
                case "store":
                    break // The token already lives in the session.
                default:
                    break // git-credential(1): unknown operations are ignored.
                }
            } catch {
                throw Output.fail(error)
            }
        }

        /// git closes stdin after its request; a few hundred bytes, read up to 64 KiB and one more.
        static func readStandardInput() throws -> Data {
            var data = Data()
            while data.count <= 64 * 1024, let chunk = try FileHandle.standardInput.read(upToCount: 4096), !chunk.isEmpty {
                data.append(chunk)
            }
            return data
        }
    }

    struct Kubectl: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "kubectl",
            abstract: "Print a client.authentication.k8s.io/v1 ExecCredential for a kubeconfig `exec` user.",
            discussion: "The ID token by default (as kubelogin does), the access token with --access-token; refreshed when needed, signing in when there is no session.")

        @Argument(help: "The provider id.")
        var name: String

        @Option(help: "The account name, when one provider holds several sessions.")
        var account: String = "default"

        @Option(name: .customLong("var"), help: "A provider variable as name=value, for signing in.")
        var variables: [String] = []

        @Flag(name: .customLong("access-token"), help: "Hand kubectl the access token instead of the ID token.")
        var accessToken = false

        @OptionGroup var registryOptions: RegistryOptions

        func validate() throws {
            _ = try VariableOptions.parse(variables)
        }

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            do {
                let values = try VariableOptions.parse(variables)
                let key = SessionKey(providerID: name, account: account)
                var session = try await CredentialSession.validSession(for: key, variables: values.isEmpty ? nil : values, store: FileTokenStore(),
                                                                       registry: registryOptions, environment: environment)
                if accessToken {
                    Output.stdoutExact(try Output.json(ExecCredential(token: session.tokens.accessToken, expiresAt: session.tokens.expiresAt)))
                    return
                }
                var expiry = session.tokens.idToken.flatMap(CredentialSession.expiry(ofIDToken:))
                if let current = expiry, current.timeIntervalSinceNow < 60 {
                    session = try await CredentialSession.refreshed(session, registry: registryOptions, environment: environment)
                    expiry = session.tokens.idToken.flatMap(CredentialSession.expiry(ofIDToken:))
                }
                guard let idToken = session.tokens.idToken, let expiry, expiry.timeIntervalSinceNow > 0 else {
                    throw CommandFailure("the session for \(key) has no valid ID token (is the provider OpenID Connect, with the openid scope?); use --access-token")
                }
                Output.stdoutExact(try Output.json(ExecCredential(token: idToken, expiresAt: expiry)))
            } catch {
                throw Output.fail(error)
            }
        }
    }
}

/// A valid session for a credential helper: the stored one (refreshed when needed), or a new sign-in.
enum CredentialSession {
    static func validSession(for key: SessionKey, variables: [String: String]?, store: FileTokenStore, registry: RegistryOptions,
                             environment: [String: String]) async throws -> StoredSession {
        if let valid = try await TokenManager.storedSession(key: key, in: store) {
            return valid
        }
        if let stored = try await store.load(key) {
            let manager = try self.manager(for: stored, variables: variables, store: store, registry: registry, environment: environment)
            do {
                _ = try await manager.validAccessToken()
                return try await manager.session()
            } catch let error as SessionError where error.code == .signedOut || error.code == .notSignedIn {
                Output.stderr("oauthflow: \(Output.line(error.message))\n")
            }
        }
        return try await signIn(key, variables: variables ?? [:], store: store, registry: registry, environment: environment)
    }

    static func refreshed(_ session: StoredSession, registry: RegistryOptions, environment: [String: String]) async throws -> StoredSession {
        try await manager(for: session, variables: nil, store: FileTokenStore(), registry: registry, environment: environment).refresh()
    }

    /// The token manager of a stored session, its client resolved as every session command resolves it.
    private static func manager(for session: StoredSession, variables: [String: String]?, store: FileTokenStore, registry: RegistryOptions,
                                environment: [String: String]) throws -> TokenManager {
        let provider = try registry.descriptor(named: session.key.providerID).resolve(variables ?? session.variables)
        let client = try ClientSettings.client(id: session.clientID, redirectURI: session.redirectURI, provider: provider, environment: environment)
        return TokenManager(client: client, store: store, key: session.key)
    }

    /// Signs in as `oauthflow login` would, every word on stderr: the browser, or the device flow where none can open.
    private static func signIn(_ key: SessionKey, variables: [String: String], store: FileTokenStore, registry: RegistryOptions,
                               environment: [String: String]) async throws -> StoredSession {
        let settings = try ClientSettings.resolve(provider: key.providerID, clientID: nil, secretEnvironment: nil, clientAuth: nil,
                                                  variables: variables, scopes: [], environment: environment, offerFlag: false)
        let provider = try registry.descriptor(named: key.providerID).resolve(settings.variables)
        let name = Output.line(provider.displayName)
        if provider.policy.supportsDeviceFlow, OAuthFlowCommand.Login.noBrowserReason(environment) != nil {
            return try await DeviceSignIn(store: store).signIn(
                to: provider, clientID: settings.clientID, clientSecret: settings.secret, authMethod: settings.authMethod,
                scopes: settings.scopes, account: key.account) { event in
                    if case let .showCode(authorization) = event {
                        Output.stderr("oauthflow: to sign in to \(name), open \(Output.line(authorization.verificationURI.absoluteString)) and enter \(Output.line(authorization.displayUserCode))\n")
                    }
                }.session
        }
        return try await LoopbackSignIn(store: store, browser: SystemBrowser(environment: environment)).signIn(
            to: provider, client: .init(clientID: settings.clientID, clientSecret: settings.secret, authMethod: settings.authMethod, scopes: settings.scopes),
            account: key.account) { event in
                if case let .openURL(url) = event {
                    Output.stderr("oauthflow: sign in to \(name) at \(Output.line(url.absoluteString))\n")
                }
            }.session
    }

    /// The `exp` of an ID token (not verified here: it was when it was issued).
    static func expiry(ofIDToken token: Secret) -> Date? {
        guard let seconds = (try? IDTokenValidator.decodeUnverified(token.value))?.claims["exp"]?.numberValue else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
