import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Resources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the resources the stored session's granted scopes open.")

        @OptionGroup var session: SessionOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws {
            let resources: [Resource]
            do {
                let (stored, provider) = try await session.load()
                resources = provider.resources.resources(granted: stored.scopes)
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
            if json {
                Output.stdoutExact(try Output.json(resources))
                return
            }
            if resources.isEmpty { Output.stderr("no resources are open to the granted scopes\n") }
            for resource in resources {
                Output.stdout([resource.title, resource.scope, resource.url.absoluteString].map(TerminalText.escaped).joined(separator: "\t") + "\n")
            }
        }
    }

    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "GET a protected resource with the stored session's access token, refreshing it when needed.",
            discussion: "Prints the HTTP status on stderr and the body on stdout. Exits 1 unless the status is 2xx.")

        @OptionGroup var session: SessionOptions

        @Argument(help: "A resource title from `oauthflow resources`, or a URL.")
        var target: String

        func run() async throws {
            let response: HTTPResponse
            do {
                let (manager, _, provider) = try await session.manager()
                let url: URL
                if let resource = provider.resources.resource(titled: target) {
                    // A resource whose scope was not granted would only answer 403: say why instead of sending.
                    let granted = try await manager.session().tokens.scopes
                    guard granted.contains(resource.scope) else {
                        throw CommandFailure("`\(resource.title)` needs the scope `\(resource.scope)`, which this session was not granted (granted: \(granted.joined(separator: " "))); sign in again with `--scope \(resource.scope)`")
                    }
                    url = resource.url
                } else if let parsed = URL(string: target), parsed.scheme != nil, parsed.host != nil {
                    url = parsed
                } else {
                    throw ValidationError("`\(target)` is neither a resource of \(provider.id) nor a URL; see `oauthflow resources \(provider.id)`")
                }
                response = try await manager.perform(HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
            Output.stderr("HTTP \(response.status)\n")
            Output.stdoutData(response.body)
            if !(200..<300).contains(response.status) { throw ExitCode.failure }
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Inspect and refresh the stored session's tokens.",
            subcommands: [Show.self, Refresh.self, Print.self, Revoke.self])

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show the stored session without printing any token.")

            @OptionGroup var session: SessionOptions

            func run() async throws {
                let stored: StoredSession
                do {
                    guard let loaded = try await FileTokenStore().load(session.key) else {
                        throw SessionError.notSignedInMessage(session.key)
                    }
                    stored = loaded
                } catch let error as ValidationError {
                    throw error
                } catch {
                    throw Output.fail(error)
                }
                Output.stdout(TokenSummary(stored).text)
            }
        }

        struct Refresh: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Refresh the access token now, under the session's lock, and store the result.")

            @OptionGroup var session: SessionOptions

            func run() async throws {
                do {
                    let (manager, stored, _) = try await session.manager()
                    let refreshed = try await manager.refresh(replacing: stored.tokens.accessToken)
                    Output.stdout(TokenSummary(refreshed).text)
                } catch let error as ValidationError {
                    throw error
                } catch {
                    throw Output.fail(error)
                }
            }
        }
    }
}

/// What `token show` prints: everything but the tokens themselves.
struct TokenSummary {
    let text: String

    init(_ session: StoredSession, now: Date = Date()) {
        let tokens = session.tokens
        var lines = ["session: \(session.key)", "client: \(session.clientID)", "scopes: \(tokens.scopes.joined(separator: " "))"].map(TerminalText.escaped)
        if let expiresAt = tokens.expiresAt {
            let seconds = Int(expiresAt.timeIntervalSince(now))
            lines.append("expires: \(ISO8601DateFormatter().string(from: expiresAt)) (\(seconds >= 0 ? "in \(seconds) s" : "expired"))")
        } else {
            lines.append("expires: not stated by the server")
        }
        lines.append("refresh token: \(tokens.refreshToken == nil ? "none" : "present")")
        lines.append("id token: \(tokens.idToken == nil ? "none" : "present")")
        lines.append("updated: \(ISO8601DateFormatter().string(from: session.updatedAt))")
        text = lines.joined(separator: "\n") + "\n"
    }
}
