import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// `oauthflow token client`, `token exchange` and `call --service` as a service's operator runs them: the
/// client and its key in the clients file, tokens cached in the token directory and shared by processes.
@Suite(.serialized, .enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
struct ServiceTokenCLITests {
    struct Environment {
        let home: TemporaryDirectory
        let server: TestServiceServer

        var variables: [String: String] {
            ["XDG_STATE_HOME": home.url.appendingPathComponent("state").path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path]
        }

        func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runProduct(
                "oauthflow", arguments + ["--providers-dir", home.url.appendingPathComponent("providers").path],
                environment: variables.merging(extra) { _, given in given })
        }
    }

    /// A providers directory with the service server's descriptor (`service`), and a clients file.
    static func environment(clients: String, extra: String = "") throws -> Environment {
        let server = try TestServiceServer.require()
        let home = try TemporaryDirectory()
        _ = try home.write("providers/service.yaml", server.descriptor(methods: ["private_key_jwt", "tls_client_auth", "client_secret_basic"], audience: "token_endpoint", extra: extra).yaml)
        _ = try home.write("config/oauthflow/clients.yaml", clients)
        return Environment(home: home, server: server)
    }

    static func rsaClients(_ server: TestServiceServer) throws -> String {
        let rsa = try server.client("rsa")
        return """
            service:
              client_id: \(rsa.clientID)
              private_key_file: \(try #require(rsa.privateKeyPEM))
              key_id: \(try #require(rsa.kid))

            """
    }

    /// The clients file of the server's `tls` client: its certificate and key, the method pinned or not, the CA or not.
    static func tlsClients(_ server: TestServiceServer, pinned: Bool, trustingCA: Bool) throws -> String {
        let tls = try server.client("tls")
        var lines = ["service:", "  client_id: \(tls.clientID)"]
        if pinned { lines.append("  client_auth: tls_client_auth") }
        lines.append("  certificate_file: \(try #require(tls.certificatePEM))")
        lines.append("  private_key_file: \(try #require(tls.certificateKeyPEM))")
        if trustingCA { lines.append("  ca_file: \(server.caCertificate)") }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func aTokenIsPrintedAndReusedByTheNextRun() async throws {
        let server = try TestServiceServer.require()
        let env = try Self.environment(clients: try Self.rsaClients(server))
        defer { env.home.cleanUp() }
        let clientID = try server.client("rsa").clientID
        let before = try await server.tokenRequests(for: clientID, resources: ["https://cli.oauthflow.test"])
        let first = try await env.run(["token", "client", "service", "--scope", "read", "--resource", "https://cli.oauthflow.test"])
        #expect(first.status == 0, "\(first.stderr)")
        let token = Secret(first.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let (status, whoami) = try await server.whoami(token)
        #expect(status == 200)
        #expect(whoami["resource"] as? [String] == ["https://cli.oauthflow.test"])
        let second = try await env.run(["token", "client", "service", "--resource", "https://cli.oauthflow.test", "--scope", "read"])
        #expect(second.stdout == first.stdout)
        #expect(try await server.tokenRequests(for: clientID, resources: ["https://cli.oauthflow.test"]) == before + 1)
        let stored = try String(contentsOfFile: try #require(FileManager.default.subpathsOfDirectory(atPath: env.home.url.appendingPathComponent("state/oauthflow").path).first.map { env.home.url.appendingPathComponent("state/oauthflow/\($0)").path }), encoding: .utf8)
        #expect(!stored.contains("PRIVATE KEY"))
    }

    @Test func processesStartedTogetherMakeOneRequest() async throws {
        let server = try TestServiceServer.require()
        let env = try Self.environment(clients: try Self.rsaClients(server))
        defer { env.home.cleanUp() }
        let clientID = try server.client("rsa").clientID
        let api = "https://processes.oauthflow.test"
        let before = try await server.tokenRequests(for: clientID, resources: [api])
        let outputs = try await withThrowingTaskGroup(of: (Int32, String).self) { group in
            for _ in 0..<6 {
                group.addTask {
                    // env.run waits for the process off the cooperative pool.
                    let result = try await env.run(["token", "client", "service", "--scope", "write", "--resource", api])
                    return (result.status, result.stdout + result.stderr)
                }
            }
            return try await group.reduce(into: [(Int32, String)]()) { $0.append($1) }
        }
        #expect(outputs.allSatisfy { $0.0 == 0 }, "\(outputs)")
        #expect(Set(outputs.map(\.1)).count == 1, "every process printed the same token")
        #expect(try await server.tokenRequests(for: clientID, resources: [api]) == before + 1, "the file lock made one request for six processes")
    }

    @Test func callWithServiceUsesTheClientsToken() async throws {
        let server = try TestServiceServer.require()
        let env = try Self.environment(clients: try Self.rsaClients(server))
        defer { env.home.cleanUp() }
        let result = try await env.run(["call", "service", server.resource.absoluteString, "--service", "--scope", "read"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 200"))
        #expect(result.stdout.contains(try server.client("rsa").clientID))
    }

    @Test func mutualTLSFromTheClientsFile() async throws {
        let server = try TestServiceServer.require()
        let tls = try server.client("tls")
        let env = try Self.environment(clients: try Self.tlsClients(server, pinned: true, trustingCA: true))
        defer { env.home.cleanUp() }
        let result = try await env.run(["token", "client", "service"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await server.whoami(Secret(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))).body["client_id"] as? String == tls.clientID)
    }

    @Test func aKeyInClearAndAMissingKeyFileAreRefusedWithTheirPlace() async throws {
        let server = try TestServiceServer.require()
        let literal = try Self.environment(clients: "service:\n  client_id: svc\n  private_key: abc\n")
        defer { literal.home.cleanUp() }
        let refused = try await literal.run(["token", "client", "service"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("clients.yaml:3:3: `private_key` holds a key in clear"), "\(refused.stderr)")
        let missing = try Self.environment(clients: "service:\n  client_id: svc\n  private_key_file: /nonexistent/key.pem\n")
        defer { missing.home.cleanUp() }
        let unreadable = try await missing.run(["token", "client", "service"])
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("/nonexistent/key.pem"), "\(unreadable.stderr)")
        _ = server
    }

    @Test func tokenExchangeReadsTheSubjectTokenFromStdin() async throws {
        let exchange = try TestExchangeServer.require()
        let basic = try exchange.client("basic")
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        _ = try home.write("providers/exchange.yaml", exchange.descriptor(methods: ["client_secret_basic"]).yaml)
        _ = try home.write("config/oauthflow/clients.yaml", "exchange:\n  client_id: \(basic.clientID)\n  client_secret_env: EXCHANGE_SECRET\n")
        let subject = try await exchange.subjectToken()
        let audience = try #require(exchange.audiences.first)
        let result = try await runWithInput(
            try builtProduct("oauthflow"),
            [
                "token", "exchange", "exchange", "--subject-token-file", "-", "--audience", audience, "--providers-dir",
                home.url.appendingPathComponent("providers").path,
            ],
            input: subject.value + "\n",
            environment: [
                "XDG_STATE_HOME": home.url.appendingPathComponent("state").path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
                "EXCHANGE_SECRET": try #require(basic.clientSecret),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let issued = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!issued.isEmpty && issued != subject.value)
        #expect(!result.stderr.contains(subject.value) && !result.stderr.contains(basic.clientSecret ?? "-"))
    }

    @Test func aRefusedOrMissingCredentialSaysWhatToDo() async throws {
        let server = try TestServiceServer.require()
        let tls = try server.client("tls")
        // A certificate's key also signs assertions, and the descriptor lists private_key_jwt first: the server refuses.
        let unpinned = try Self.environment(clients: try Self.tlsClients(server, pinned: false, trustingCA: true))
        defer { unpinned.home.cleanUp() }
        let refused = try await unpinned.run(["token", "client", "service"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("hint: the provider refused the client `\(tls.clientID)` authenticating with private_key_jwt"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--client-auth METHOD"), "\(refused.stderr)")
        let pinned = try await unpinned.run(["token", "client", "service", "--client-auth", "tls_client_auth"])
        #expect(pinned.status == 0, "\(pinned.stderr)")

        // Without the CA, the server's certificate is not trusted, and the message says how to trust it.
        let untrusted = try Self.environment(clients: try Self.tlsClients(server, pinned: true, trustingCA: false))
        defer { untrusted.home.cleanUp() }
        let handshake = try await untrusted.run(["token", "client", "service"])
        #expect(handshake.status == 1)
        #expect(handshake.stderr.contains("TLS certificate is not trusted") && handshake.stderr.contains("ca_file"), "\(handshake.stderr)")

        let nothing = try Self.environment(clients: "service:\n  client_id: svc\n")
        defer { nothing.home.cleanUp() }
        let missing = try await nothing.run(["token", "client", "service"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("hint: give the client's credential") && missing.stderr.contains("private_key_file"), "\(missing.stderr)")
    }
}
