import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// `oauthflow providers add` followed as a newcomer follows it (issue 55, item 11): against a server whose metadata says
/// less than it takes (LemonLDAP::NG's: `client_secret_basic` alone, no `offline_access`) and that compares redirect
/// URIs exactly, port included, each step of the closing advice is run as printed, and signs in.
@Suite(.serialized) struct ProvidersAddSignInTests {
    /// A simulated server on 127.0.0.1 that takes `lemon-app` (a secret, Basic) and `lemon-cli` (public) at `redirect`
    /// only, with metadata that lists neither `none` nor `offline_access`.
    static func server(redirect: URL) async throws -> SimulatedProviderServer {
        var settings = SimulatedProvider.Settings()
        settings.loopbackPortsMatchExactly = true
        settings.offersDPoP = false
        settings.metadataOverrides = [
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_basic")]),
            "scopes_supported": .array(["openid", "profile", "email"].map(JSONValue.string)),
            // Requests in the URL, so that the scopes asked for can be read there.
            "pushed_authorization_request_endpoint": .null,
        ]
        return try await SimulatedProviderServer.start(
            settings: settings,
            clients: [
                .confidential(id: "lemon-app", secret: "lemon-app-secret-0123456789abcdef", redirectURIs: [redirect]),
                .public(id: "lemon-cli", redirectURIs: [redirect]),
            ])
    }

    /// A browser stand-in that follows the provider's redirect back to the loopback receiver.
    static func browser(in directory: TemporaryDirectory) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let python = try #require(
            path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }, "python3 is not on the PATH")
        let script = try directory.write("browse.py", "import sys, urllib.request\nurllib.request.urlopen(sys.argv[1], timeout=60).read()\n")
        return "\(python) \(script.path)"
    }

    /// The numbered steps of the advice, and the commands between backquotes in each.
    static func steps(_ stderr: String) -> [(text: String, commands: [String])] {
        guard let next = stderr.range(of: "Next:\n") else { return [] }
        return stderr[next.upperBound...].split(separator: "\n").compactMap { line in
            guard let dot = line.firstIndex(of: "."), line.hasPrefix("  "), Int(line[..<dot].trimmingCharacters(in: .whitespaces)) != nil else {
                return nil
            }
            let text = String(line[line.index(after: dot)...]).trimmingCharacters(in: .whitespaces)
            let commands = text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
            return (text, commands)
        }
    }

    /// Runs an `oauthflow …` command line from the advice, as a shell would split it.
    static func run(_ line: String, replacing placeholders: [String: String] = [:], environment: [String: String]) async throws -> CLI.Result {
        var words = shellWords(line, home: NSHomeDirectory())
        #expect(words.first == "oauthflow", "\(line)")
        words = words.dropFirst().map { placeholders[$0] ?? $0 }
        return try await CLI.run(words, environment: environment)
    }

    @Test func theClosingAdviceSignsInWhenTheMetadataSaysLessThanTheServerTakes() async throws {
        let port = try unusedPort()
        let redirect = try #require(URL(string: "http://127.0.0.1:\(port)/callback"))
        let server = try await Self.server(redirect: redirect)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let environment = [
            "XDG_CONFIG_HOME": directory.url.appendingPathComponent("config").path,
            "XDG_STATE_HOME": directory.url.appendingPathComponent("state").path, "BROWSER": try Self.browser(in: directory),
            "LEMON_SECRET": "lemon-app-secret-0123456789abcdef",
        ]
        let issuer = server.provider.issuer.absoluteString
        do {
            let added = try await CLI.run(["providers", "add", issuer, "--id", "lemon", "--port", "\(port)"], environment: environment)
            #expect(added.status == 0, "\(added.stderr)")
            let file = try #require(added.stdout.split(separator: "\n").first.map(String.init))
            let steps = Self.steps(added.stderr)
            #expect(steps.count == 5, "\(added.stderr)")

            // 1. The redirect URI to register: exactly the one the server has.
            #expect(steps.first?.text.hasPrefix("Register \(redirect.absoluteString) as a redirect URI") == true, "\(added.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("    port: \(port)\n"))

            // 2. The server lists no `none`: the sign-in the advice gives is a confidential one, and it works as printed.
            let confidential = try #require(steps.dropFirst().first?.commands.first, "\(added.stderr)")
            #expect(confidential == "oauthflow login lemon --client-id CLIENT_ID --client-secret-env SECRET_VARIABLE")
            let signedIn = try await Self.run(
                confidential + " --timeout 60", replacing: ["CLIENT_ID": "lemon-app", "SECRET_VARIABLE": "LEMON_SECRET"], environment: environment)
            #expect(signedIn.status == 0, "\(signedIn.stderr)")
            #expect(signedIn.stdout.contains("Signed in to lemon."), "\(signedIn.stdout)")

            // 3. A public client: the command that writes the file again, then the sign-in, each as printed.
            let publicStep = try #require(steps.first { $0.text.hasPrefix("For a public client") }, "\(added.stderr)")
            #expect(publicStep.commands.count == 2)
            let rewritten = try await Self.run(publicStep.commands[0], environment: environment)
            #expect(rewritten.status == 0, "\(rewritten.stderr)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("  methods: [none, client_secret_basic]\n"), "\(text)")
            #expect(text.contains("  - token_endpoint_auth_methods_supported: [none]\n"), "\(text)")
            #expect(Self.steps(rewritten.stderr).contains { $0.text.hasPrefix("Sign in with a public client") }, "\(rewritten.stderr)")
            let publicSignIn = try await Self.run(publicStep.commands[1] + " --timeout 60", replacing: ["CLIENT_ID": "lemon-cli"], environment: environment)
            #expect(publicSignIn.status == 0, "\(publicSignIn.stderr)")
            #expect(publicSignIn.stdout.contains("refresh token: issued") || publicSignIn.stdout.contains("refresh token: not issued"))

            // 4. offline_access: written again with the flag the advice names, the sign-in asks for it.
            let offlineStep = try #require(Self.steps(rewritten.stderr).first { $0.text.hasPrefix("Sign-ins do not ask for offline_access") })
            let offline = try await Self.run(try #require(offlineStep.commands.first), environment: environment)
            #expect(offline.status == 0, "\(offline.stderr)")
            let offlineText = try String(contentsOfFile: file, encoding: .utf8)
            #expect(offlineText.contains("    scopes: [offline_access]\n") && offlineText.contains("  - scopes_supported: [offline_access]\n"), "\(offlineText)")
            #expect(offlineText.contains("  methods: [none, client_secret_basic]\n"), "the flags given before are kept: \(offlineText)")
            let url = try await CLI.run(["authorize-url", "lemon", "--client-id", "lemon-cli"], environment: environment)
            #expect(url.stdout.contains("offline_access"), "\(url.stdout)\(url.stderr)")

            // 5. The CI gate the advice ends with passes, naming each gap the file acknowledges.
            let lintStep = try #require(Self.steps(offline.stderr).last?.commands.first)
            let lint = try await Self.run(lintStep, environment: environment)
            #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
            #expect(lint.stdout.contains("acknowledged by `discovery.lacks` (token_endpoint_auth_methods_supported: none)"), "\(lint.stdout)")
            #expect(lint.stdout.contains("acknowledged by `discovery.lacks` (scopes_supported: offline_access)"), "\(lint.stdout)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The same server, the default port: the draft fixes 8765 and says so, and a redirect URI the server does not
    /// have registered is the one the advice names, not an ephemeral one no one could register.
    @Test func theDefaultDraftFixesAPortAndTheAdviceNamesIt() async throws {
        let server = try await Self.server(redirect: try #require(URL(string: "http://127.0.0.1:8765/callback")))
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let environment = ["XDG_CONFIG_HOME": directory.url.path]
        let added = try await CLI.run(["providers", "add", server.provider.issuer.absoluteString, "--id", "lemon"], environment: environment)
        let ephemeral = try await CLI.run(
            ["providers", "add", server.provider.issuer.absoluteString, "--id", "other", "--port", "ephemeral"], environment: environment)
        await server.stop()
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("  1. Register http://127.0.0.1:8765/callback as a redirect URI of your client at the server, exactly"), "\(added.stderr)")
        #expect(added.stderr.contains("note: Sign-ins send the redirect URI http://127.0.0.1:8765/callback: register it at the server."), "\(added.stderr)")
        #expect(!added.stderr.contains("Sign in with `oauthflow login lemon --client-id ID`"), "the old advice, which a public client could not follow")
        #expect(ephemeral.status == 0, "\(ephemeral.stderr)")
        #expect(
            ephemeral.stderr.contains("  1. Register http://127.0.0.1/callback as a redirect URI of your client at the server; the port is ephemeral"),
            "\(ephemeral.stderr)")
        let other = try String(contentsOf: directory.url.appendingPathComponent("oauthflow/providers/other.yaml"), encoding: .utf8)
        #expect(!other.contains("redirect:"), "\(other)")
        let bad = try await CLI.run(["providers", "add", "https://sso.example.com", "--port", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--port takes a port from 1 to 65535, or `ephemeral`"), "\(bad.stderr)")
    }
}
