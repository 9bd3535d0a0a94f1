import Foundation
import OAuthFlow
import OAuthFlowWeb

/// The command line: the same options as the Hummingbird example (Examples/WebSignIn).
struct Options {
    var origin: URL?
    var port = 8080
    var providerDirectories: [URL] = []
    var clients: [String: WebSignIn.Client] = [:]
    /// Where the signed-in sessions' tokens are kept (a FileTokenStore); nil for a new temporary directory.
    var sessionsDirectory: URL?
    /// The providers whose access tokens the app's own API accepts, and whether each one's are opaque.
    var api: [(id: String, opaque: Bool)] = []
    /// The scopes `GET /api/me` requires.
    var apiScopes: [String] = []

    static let usage = """
        usage: VaporSignInExample --client ID=CLIENT [--secret ID=ENV] [--var ID.NAME=VALUE] [--origin URL] [--port N]
                                  [--providers-dir DIR] [--sessions-dir DIR] [--api ID[=opaque]] [--api-scope SCOPE]
        """

    init(_ arguments: [String]) throws {
        var secrets: [String: String] = [:]
        var variables: [String: [String: String]] = [:]
        var clientIDs: [String: String] = [:]
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func pair(_ text: String, _ separator: Character) throws -> (String, String) {
            guard let at = text.firstIndex(of: separator) else { throw UsageError("expected NAME\(separator)VALUE, got \(text)") }
            return (String(text[..<at]), String(text[text.index(after: at)...]))
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--origin": origin = URL(string: try value())
            case "--port": port = Int(try value()) ?? 0
            case "--providers-dir": providerDirectories.append(URL(fileURLWithPath: try value()))
            case "--sessions-dir": sessionsDirectory = URL(fileURLWithPath: try value(), isDirectory: true)
            case "--client": let (id, client) = try pair(try value(), "="); clientIDs[id] = client
            case "--secret": let (id, variable) = try pair(try value(), "="); secrets[id] = variable
            case "--var":
                let (name, text) = try pair(try value(), "=")
                let (id, variable) = try pair(name, ".")
                variables[id, default: [:]][variable] = text
            case "--api":
                let text = try value()
                let (id, kind) = text.contains("=") ? try pair(text, "=") : (text, "")
                guard kind.isEmpty || kind == "opaque" else { throw UsageError("--api takes ID or ID=opaque, got \(text)") }
                api.append((id, kind == "opaque"))
            case "--api-scope": apiScopes.append(try value())
            default: throw UsageError("unknown option \(arguments[index])")
            }
            index += 1
        }
        guard (1...65535).contains(port) else { throw UsageError("--port takes a port number, 1 to 65535") }
        guard !clientIDs.isEmpty else { throw UsageError("enable at least one provider with --client ID=CLIENT_ID") }
        for (id, clientID) in clientIDs {
            var secret: Secret?
            if let variable = secrets[id] {
                guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else {
                    throw UsageError("the client secret of \(id) should be in $\(variable), which is not set")
                }
                secret = Secret(text)
            }
            clients[id] = WebSignIn.Client(clientID: clientID, clientSecret: secret, variables: variables[id] ?? [:])
        }
        for (id, _) in api where clients[id] == nil {
            throw UsageError("--api \(id) names a provider not enabled with --client")
        }
    }

    /// The app's own API: it trusts the `--api` providers; opaque tokens are introspected with the app's own client.
    func protectedResource(registry: ProviderRegistry, resource: URL) throws -> ProtectedResource? {
        guard !api.isEmpty else { return nil }
        var providers: [Provider] = []
        var introspectionClients: [String: ClientConfiguration] = [:]
        for (id, opaque) in api {
            guard let client = clients[id] else { continue }
            var descriptor = try registry.provider(named: id)
            if opaque {
                descriptor.accessTokens.format = .opaque
                introspectionClients[id] = .service(clientID: client.clientID, clientSecret: client.clientSecret)
            }
            providers.append(try descriptor.resolve(client.variables))
        }
        return try ProtectedResource(
            providers: providers, settings: .init(resource: resource, scopesSupported: apiScopes, resourceName: "OAuthFlow example API"),
            introspectionClients: introspectionClients)
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
