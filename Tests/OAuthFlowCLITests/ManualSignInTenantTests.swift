import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// `authorize-url` then `login --callback-url`, as two processes run them: the clients file's secret goes with the
/// variables its entry states, so a sign-in started with another tenant's value finishes without it, and the secret
/// never reaches that tenant's server.
@Suite(.serialized) struct ManualSignInTenantTests {
    static let secret = "alpha-secret-value-0123456789"

    static func describe(_ home: CLIMessagesTests.Home, _ server: SimulatedProviderServer) throws {
        try home.describe(
            server,
            extra: """
                variables:
                  tenant:
                    description: Tenant
                    pattern: '^[a-z]+$'
                    example: alpha
                authorization:
                  pushed: never
                  extra_params:
                    tenant: '{tenant}'
                client_auth:
                  methods: [client_secret_post, none]
                """)
        try home.directory.write(
            "config/oauthflow/clients.yaml", "sim:\n  client_id: tenant-app\n  client_secret_env: SIM_SECRET\n  variables:\n    tenant: alpha\n")
    }

    /// Starts a sign-in with `arguments`, approves it at the server, and finishes it in another process.
    static func signIn(_ home: CLIMessagesTests.Home, _ server: SimulatedProviderServer, _ arguments: [String]) async throws -> CLI.Result {
        let environment = ["SIM_SECRET": secret]
        let start = try await home.run(["authorize-url", "sim"] + arguments, environment: environment)
        #expect(start.status == 0, "\(start.stderr)")
        let url = try #require(URL(string: start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(start.stdout)")
        let callback = try await server.provider.approve(url)
        return try await home.run(["login", "sim", "--callback-url", callback.absoluteString], environment: environment)
    }

    @Test func aSignInStartedForAnotherTenantFinishesWithoutTheEntrysSecret() async throws {
        let redirect = try #require(URL(string: "http://127.0.0.1:8765/callback"))
        let server = try await SimulatedProviderServer.start(clients: [
            .confidential(id: "tenant-app", secret: Self.secret, authentication: .clientSecretPost, redirectURIs: [redirect])
        ])
        let home = try CLIMessagesTests.Home()
        defer { home.directory.cleanUp() }
        do {
            try Self.describe(home, server)
            let elsewhere = try await Self.signIn(home, server, ["--var", "tenant=beta"])
            #expect(elsewhere.status == 1, "the secret was sent with tenant beta: \(elsewhere.stderr)")
            #expect(elsewhere.stderr.contains("`invalid_client`"), "the provider saw no secret: \(elsewhere.stderr)")
            #expect(!elsewhere.stderr.contains(Self.secret) && !elsewhere.stdout.contains(Self.secret))
            // The entry's own tenant signs in with its secret.
            let home2 = try await Self.signIn(home, server, [])
            #expect(home2.status == 0, "\(home2.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// `authorize-url` says how long its sign-in lives, and `login --callback-url` refuses one older than that
/// (`PendingAuthorization.lifetime`), forgets it unsent and names the command that starts again (seen failing with no
/// expiry: the code went to the token endpoint).
@Suite struct ManualSignInExpiryTests {
    @Test func aSignInFinishedTooLateIsRefusedAndForgotten() async throws {
        let home = try CLIMessagesTests.Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("far")
        let start = try await home.run(["authorize-url", "far", "--client-id", "cli-app"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stderr.contains("then within 10 minutes run: "), "\(start.stderr)")
        let url = try #require(URLComponents(string: start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let state = try #require(url.queryItems?.first { $0.name == "state" }?.value)

        // The sign-in started 11 minutes ago: its kept state says so.
        let states = home.directory.url.appendingPathComponent("state")
        let files = FileManager.default.enumerator(at: states, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let pending = try #require(files.first { $0.lastPathComponent.hasSuffix(".pending.json") }, "\(files)")
        var entry = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: pending)) as? [String: Any])
        var authorization = try #require(entry["pending"] as? [String: Any])
        let created = try #require(authorization["createdAt"] as? Double)
        authorization["createdAt"] = created - 660
        entry["pending"] = authorization
        try JSONSerialization.data(withJSONObject: entry).write(to: pending)

        let late = try await home.run(["login", "far", "--callback-url", "http://127.0.0.1:8765/callback?code=abc&state=\(state)"])
        #expect(late.status == 1, "\(late.stderr)")
        #expect(late.stderr.contains("more than 10 minutes ago"), "\(late.stderr)")
        #expect(late.stderr.contains("start again with `oauthflow authorize-url far"), "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: pending.path), "the expired sign-in is forgotten")
    }
}
