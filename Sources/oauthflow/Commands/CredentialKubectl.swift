#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand.Credential {
    struct Kubectl: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "kubectl",
            abstract: "Print a client.authentication.k8s.io/v1 ExecCredential for a kubeconfig `exec` user.",
            discussion:
                "The ID token by default (as kubelogin does), the access token with --access-token; refreshed when needed, signing in when there is no session."
        )

        @Argument(help: "The provider id.")
        var name: String

        @Option(help: "The account name, when one provider holds several sessions.")
        var account: String = "default"

        @Option(
            name: .customLong("var"),
            help: "A provider variable as name=value, for signing in; a stored session signed in with another value is refused.")
        var variables: [String] = []

        @Flag(name: .customLong("access-token"), help: "Hand kubectl the access token instead of the ID token.")
        var accessToken = false

        @OptionGroup var registryOptions: RegistryOptions

        func validate() throws {
            try VariableOptions.validate(variables)
        }

        func run() async throws {
            try await Output.running(prefix: "oauthflow: ") {
                let values = VariableOptions.values(variables)
                let key = SessionKey(providerID: name, account: account)
                let oauth = registryOptions.oauth()
                let browser = OAuthFlowCommand.Credential.browser
                if accessToken {
                    let session = try await oauth.bearerSession(
                        name, account: account, variables: values, tool: "kubectl", browser: browser, events: OAuthFlowCommand.Credential.report)
                    Output.stdoutExact(try Output.json(ExecCredential(token: session.tokens.accessToken, expiresAt: session.tokens.expiresAt)))
                    return
                }
                // The ID token is never DPoP-bound: kubectl sends it as a Bearer token whatever the session.
                var session = try await oauth.usableSession(
                    name, account: account, variables: values, browser: browser, events: OAuthFlowCommand.Credential.report)
                var expiry = session.tokens.idToken.flatMap(Self.expiry(ofIDToken:))
                if let current = expiry, current.timeIntervalSinceNow < 60 {
                    let refreshed = try await oauth.session(name, account: account).refresh()
                    // The session checked above, refreshed: not another one stored meanwhile (another tenant's).
                    guard refreshed.authorizationServer == session.authorizationServer, refreshed.variables == session.variables else {
                        throw CommandFailure("the session for \(key) was replaced while it was refreshed; run the command again")
                    }
                    session = refreshed
                    expiry = session.tokens.idToken.flatMap(Self.expiry(ofIDToken:))
                }
                guard let idToken = session.tokens.idToken, let expiry, expiry.timeIntervalSinceNow > 0 else {
                    throw CommandFailure(
                        "the session for \(key) has no valid ID token (is the provider OpenID Connect, with the openid scope?); use --access-token")
                }
                Output.stdoutExact(try Output.json(ExecCredential(token: idToken, expiresAt: expiry)))
            }
        }

        /// The `exp` of an ID token (not verified here: it was when it was issued).
        static func expiry(ofIDToken token: Secret) -> Date? {
            guard let seconds = (try? IDTokenValidator.decodeUnverified(token.value))?.claims["exp"]?.numberValue else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
    }
}
#endif
