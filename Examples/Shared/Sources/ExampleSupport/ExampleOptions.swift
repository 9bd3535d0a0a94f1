// The command line both web sign-in examples take (Examples/WebSignIn on Hummingbird, Examples/VaporSignIn
// on Vapor): one parser, so the two apps cannot drift apart.
import Foundation
import OAuthFlow
import OAuthFlowWeb

/// The examples' options (each may repeat where it names a provider).
public struct ExampleOptions {
    public var origin: URL?
    public var port = 8080
    public var providerDirectories: [URL] = []
    public var clients: [String: ClientSettings] = [:]
    /// Where the signed-in sessions' tokens are kept (a FileTokenStore); nil for a new temporary directory.
    public var sessionsDirectory: URL?
    /// The providers whose access tokens the app's own API accepts, and whether each one's are opaque.
    public var api: [(id: String, opaque: Bool)] = []
    /// The scopes `GET /api/me` requires.
    public var apiScopes: [String] = []
    /// PEM files the app serves https with: its certificate chain and private key.
    public var tls: (certificateChain: String, privateKey: String)?

    public static let usage = """
        usage: EXAMPLE --client ID=CLIENT [--secret ID=ENV] [--signing-key ID=PEM_FILE [--key-id ID=KID]] [--var ID.NAME=VALUE]
                       [--origin URL] [--port N] [--tls-cert PEM_FILE --tls-key PEM_FILE] [--providers-dir DIR]
                       [--sessions-dir DIR] [--api ID[=opaque]] [--api-scope SCOPE]
        """

    /// The process's options; `--help` prints the usage and exits 0, a malformed command line exits 64 with it.
    public static func fromCommandLine(program: String) -> ExampleOptions {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage.replacingOccurrences(of: "EXAMPLE", with: program))
            exit(0)
        }
        do {
            return try ExampleOptions(arguments)
        } catch {
            FileHandle.standardError.write(Data("\(program): \(error)\n\(usage.replacingOccurrences(of: "EXAMPLE", with: program))\n".utf8))
            exit(64)
        }
    }

    public init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var secrets: [String: String] = [:]
        var signingKeys: [String: String] = [:]
        var keyIDs: [String: String] = [:]
        var variables: [String: [String: String]] = [:]
        var clientIDs: [String: String] = [:]
        var certificateChain: String?
        var privateKey: String?
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
            case "--origin":
                let text = try value()
                guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                    throw UsageError("--origin takes an http or https URL, got \(text)")
                }
                origin = url
            case "--port": port = Int(try value()) ?? 0
            case "--providers-dir": providerDirectories.append(URL(fileURLWithPath: try value()))
            case "--sessions-dir": sessionsDirectory = URL(fileURLWithPath: try value(), isDirectory: true)
            case "--client": let (id, client) = try pair(try value(), "="); clientIDs[id] = client
            case "--secret": let (id, variable) = try pair(try value(), "="); secrets[id] = variable
            case "--signing-key": let (id, path) = try pair(try value(), "="); signingKeys[id] = path
            case "--key-id": let (id, keyID) = try pair(try value(), "="); keyIDs[id] = keyID
            case "--tls-cert": certificateChain = try value()
            case "--tls-key": privateKey = try value()
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
        switch (certificateChain, privateKey) {
        case let (chain?, key?): tls = (chain, key)
        case (nil, nil): break
        default: throw UsageError("--tls-cert and --tls-key go together")
        }
        for id in Set(secrets.keys).union(signingKeys.keys).union(keyIDs.keys).union(variables.keys) where clientIDs[id] == nil {
            throw UsageError("\(id) is not enabled: add --client \(id)=CLIENT_ID")
        }
        for id in keyIDs.keys where signingKeys[id] == nil {
            throw UsageError("--key-id \(id)=… names the Key ID of a --signing-key \(id)=PEM_FILE, which is missing")
        }
        for (id, clientID) in clientIDs {
            var secret: Secret?
            if let variable = secrets[id] {
                guard let text = environment[variable], !text.isEmpty else {
                    throw UsageError("the client secret of \(id) should be in $\(variable), which is not set")
                }
                secret = Secret(text)
            }
            var signingKey: ClientConfiguration.SigningKey?
            if let path = signingKeys[id] {
                let pem: String
                do {
                    pem = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
                } catch {
                    throw UsageError("the signing key of \(id) cannot be read from \(path): \(error.localizedDescription)")
                }
                signingKey = try ClientConfiguration.SigningKey(pem: pem, keyID: keyIDs[id])
            }
            clients[id] = ClientSettings(clientID: clientID, secret: secret, variables: variables[id] ?? [:], signingKey: signingKey)
        }
        for (id, _) in api where clients[id] == nil {
            throw UsageError("--api \(id) names a provider not enabled with --client")
        }
        if tls != nil, !api.isEmpty {
            throw UsageError("--api needs plain http: the app calls its own API on 127.0.0.1, whose certificate it does not trust")
        }
        if let origin, tls != nil, origin.scheme != "https" {
            throw UsageError("--tls-cert serves https, but --origin is \(origin.absoluteString)")
        }
    }

    /// The origin the browser uses: `--origin`, or `http(s)://localhost:PORT`.
    public var browserOrigin: URL {
        origin ?? URL(string: "\(tls == nil ? "http" : "https")://localhost:\(port)")!
    }

    /// The app's own API where it listens, for the app to call itself (plain http: `--api` refuses TLS).
    public var selfAPIURL: URL {
        URL(string: "http://127.0.0.1:\(port)/api/me")!
    }

    /// The app's own API: it trusts the `--api` providers; opaque tokens are introspected with the app's own client.
    public func protectedResource(
        registry: ProviderRegistry, resource: URL, environment: OAuthEnvironment = OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 5))
    ) throws -> ProtectedResource? {
        guard !api.isEmpty else { return nil }
        var providers: [Provider] = []
        var introspectionClients: [String: ClientConfiguration] = [:]
        for (id, opaque) in api {
            guard let client = clients[id] else { continue }
            var descriptor = try registry.descriptor(named: id)
            if opaque {
                descriptor.accessTokens.format = .opaque
                introspectionClients[id] = .service(clientID: client.clientID, clientSecret: client.secret)
            }
            providers.append(try descriptor.resolve(client.variables))
        }
        return try ProtectedResource(
            providers: providers, settings: .init(resource: resource, scopesSupported: apiScopes, resourceName: "OAuthFlow example API"),
            introspectionClients: introspectionClients, environment: environment)
    }
}

/// Runs the app's set-up; a configuration it cannot start with (a missing variable, an http origin for a form_post
/// provider) is one line on stderr and exit status 1, not a crash.
public func orExit<T>(_ program: String, _ setUp: () throws -> T) -> T {
    do {
        return try setUp()
    } catch {
        FileHandle.standardError.write(Data("\(program): \(error)\n".utf8))
        exit(1)
    }
}

/// The sealing key: from OAUTHFLOW_EXAMPLE_KEY (32 bytes, base64), or a fresh one, which is fine for one instance.
public func exampleKeyring(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SessionKeyring {
    if let text = environment["OAUTHFLOW_EXAMPLE_KEY"] {
        return try SessionKeyring(current: .init(id: "example", base64: text))
    }
    return try SessionKeyring(current: .init(id: "generated", key: .init(size: .bits256)))
}

/// The lines that tell what to register at each provider: the redirect URI, and the post-logout redirect URI where
/// the provider can have an end-session endpoint.
public func registrationLines(_ web: WebSignIn) -> [String] {
    web.providerIDs.flatMap { id -> [String] in
        var lines = ["\(id): register the redirect URI \(web.redirectURI(for: id)?.absoluteString ?? "-")"]
        if let provider = web.provider(id), provider.endSessionSource != .none {
            lines.append("\(id): register the post-logout redirect URI \(web.postLogoutRedirectURI(for: id)?.absoluteString ?? "-")")
        } else {
            lines.append("\(id): no end-session endpoint, so no post-logout redirect URI to register; sign-out ends the session here")
        }
        return lines
    }
}

public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
