#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke the session's access token (or its refresh token) at the provider; the session stays stored.",
            discussion: "Revoking the refresh token usually ends the session at the provider; use `oauthflow logout` to revoke and delete.")

        @OptionGroup var session: SessionOptions

        @Flag(name: .customLong("refresh-token"), help: "Revoke the refresh token instead of the access token.")
        var refreshToken = false

        func run() async throws {
            // The session as its manager hands it over: only a session of this provider and client (its tokens go back
            // to the server that issued them, a DPoP-bound one's with a proof from its key, RFC 9449, a certificate-bound
            // one's with its certificate, RFC 8705).
            let manager = try await session.withManager { manager, _, _ in
                // The session read here, where a failure gets the session's own advice (sign in again).
                _ = try await manager.session()
                return manager
            }
            try await Output.running(advice: Advice.revocationFailed) {
                guard try await manager.revoke(refreshToken ? .refreshToken : .accessToken) else {
                    throw CommandFailure("the session has no refresh token")
                }
            }
            Output.stderr("Revoked the \(refreshToken ? "refresh" : "access") token.\n")
        }
    }
}
#endif
