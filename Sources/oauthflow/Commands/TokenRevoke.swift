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
            // to the server that issued them).
            let (client, token, key, bound) = try await session.withManager { manager, _, _ in
                let stored = try await manager.session()
                guard let token = refreshToken ? stored.tokens.refreshToken : stored.tokens.accessToken else {
                    throw CommandFailure("the session has no refresh token")
                }
                return (manager.client, token, stored.tokens.proofKey, stored.tokens.isCertificateBound)
            }
            try await Output.running(advice: Advice.revocationFailed) {
                // A DPoP-bound session's revocation carries a proof from its key (RFC 9449), a certificate-bound one its certificate (RFC 8705).
                try await client.revoke(token, kind: refreshToken ? .refreshToken : .accessToken, proofKey: key, certificateBound: bound)
            }
            Output.stderr("Revoked the \(refreshToken ? "refresh" : "access") token.\n")
        }
    }
}
