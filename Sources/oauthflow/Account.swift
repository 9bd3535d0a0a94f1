import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Userinfo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the signed-in user's claims from the userinfo endpoint, as JSON.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            do {
                let (manager, _, _) = try await session.manager()
                let claims = try await manager.userInfo()
                Output.stdoutExact(try Output.json(claims))
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke the session's tokens at the provider, then delete the stored session.",
            discussion: "The session is deleted even when revocation fails; the command then exits 1 and says what the server did.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            let store = FileTokenStore()
            let (stored, provider): (StoredSession, Provider)
            do {
                (stored, provider) = try await session.load(store: store)
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
            var failure: (any Error)?
            let client = try session.client(for: stored, provider: provider)
            // The revocation endpoint may come from discovery; without one there is nothing to revoke.
            let revocation = (try? await client.completeProvider())?.endpoints.revocation ?? provider.endpoints.revocation
            if revocation == nil {
                Output.stderr("\(Output.line(provider.displayName)) has no revocation endpoint; the tokens stay valid until they expire.\n")
            } else {
                do {
                    if let refresh = stored.tokens.refreshToken { try await client.revoke(refresh, kind: .refreshToken) }
                    try await client.revoke(stored.tokens.accessToken, kind: .accessToken)
                } catch {
                    failure = error
                }
            }
            do {
                try await store.remove(stored.key)
            } catch {
                throw Output.fail(error)
            }
            if let failure {
                Output.stderr("Deleted the local session, but revocation failed: \(Output.line(failure))\n")
                throw ExitCode.failure
            }
            Output.stderr("Signed out of \(Output.line(provider.displayName))\(revocation == nil ? "" : "; tokens revoked").\n")
        }
    }
}

extension OAuthFlowCommand.Token {
    struct Print: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a token on stdout, refreshing the access token first when it has expired.",
            discussion: "Tokens are secrets: this is the only command that prints one, and only when asked.")

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case access, refresh, id
        }

        @OptionGroup var session: SessionOptions

        @Option(help: "Which token: access, refresh or id.")
        var kind: Kind = .access

        func run() async throws {
            do {
                let (manager, _, _) = try await session.manager()
                let token: Secret?
                switch kind {
                case .access: token = try await manager.validAccessToken()
                case .refresh: token = try await manager.session().tokens.refreshToken
                case .id: token = try await manager.session().tokens.idToken
                }
                guard let token else { throw ValidationError("the session has no \(kind.rawValue) token") }
                Output.stdoutExact(token.value + "\n")
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke the session's access token (or its refresh token) at the provider; the session stays stored.",
            discussion: "Revoking the refresh token usually ends the session at the provider; use `oauthflow logout` to revoke and delete.")

        @OptionGroup var session: SessionOptions

        @Flag(name: .customLong("refresh-token"), help: "Revoke the refresh token instead of the access token.")
        var refreshToken = false

        func run() async throws {
            do {
                let (stored, provider) = try await session.load()
                let client = try session.client(for: stored, provider: provider)
                if refreshToken {
                    guard let token = stored.tokens.refreshToken else { throw ValidationError("the session has no refresh token") }
                    try await client.revoke(token, kind: .refreshToken)
                } else {
                    try await client.revoke(stored.tokens.accessToken, kind: .accessToken)
                }
                Output.stderr("Revoked the \(refreshToken ? "refresh" : "access") token.\n")
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
        }
    }
}
