import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "call",
            abstract: "GET a protected resource with the stored session's access token, refreshing it when needed.",
            discussion: "Prints the HTTP status on stderr and the body on stdout. Exits 1 unless the status is 2xx.")

        @OptionGroup var session: SessionOptions

        @Argument(help: "A resource title from `oauthflow resources`, or a URL.")
        var target: String

        func run() async throws {
            let response = try await session.withManager(validToken: true) { manager, stored, provider in
                let url: URL
                if let resource = provider.resources.resource(titled: target) {
                    // A resource whose scope was not granted would only answer 403: say why, and how to add the scope.
                    let granted = try await manager.session().tokens.scopes
                    guard granted.contains(resource.scope) else {
                        let add = session.signInAgain(stored, extra: ["--add-scope", resource.scope])
                        throw CommandFailure(
                            "`\(resource.title)` needs the scope `\(resource.scope)`, which this session was not granted (granted: \(granted.joined(separator: " "))); add it to this session with `\(add.text)`"
                        )
                    }
                    url = resource.url
                } else if let parsed = URL(string: target), parsed.scheme != nil, parsed.host != nil {
                    url = parsed
                } else {
                    throw CommandFailure("`\(target)` is neither a resource of \(provider.id) nor a URL; see `oauthflow resources \(provider.id)`")
                }
                // perform answers any HTTP status; what it throws comes from the refresh after a 401, or the network.
                return try await manager.perform(HTTPRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
            }
            Output.stderr("HTTP \(response.status)\n")
            Output.stdoutData(response.body)
            if !(200..<300).contains(response.status) { throw ExitCode.failure }
        }
    }
}
