import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// `oauthflow verify-token` against tokens Authlib issued: the principal on stdout, or the exact reason on
/// stderr; the token never printed.
@Suite(.enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
struct VerifyTokenCLITests {
    static let audience = "https://verify.example/api"

    static func run(_ home: TemporaryDirectory, _ arguments: [String], token: String, extra: [String: String] = [:]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let environment = [
            "XDG_STATE_HOME": home.url.appendingPathComponent("state").path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
        ].merging(extra) { _, given in given }
        return try await ChildProcess.run(
            try builtProduct("oauthflow"), ["verify-token"] + arguments + ["--providers-dir", home.url.appendingPathComponent("providers").path],
            directory: repositoryRoot, environment: environment, input: token)
    }

    static func token(_ server: TestServiceServer, client name: String, resource: String) async throws -> String {
        let client = try server.client(name)
        let provider = try server.descriptor(methods: ["client_secret_basic"]).provider()
        let oauth = OAuthClient(provider: provider, configuration: try client.configuration())
        return try await oauth.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: [resource])).accessToken.value
    }

    @Test func aJWTIsAcceptedOrRefusedWithItsReason() async throws {
        let server = try TestServiceServer.require()
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        _ = try home.write(
            "providers/service.yaml", server.descriptor(methods: ["client_secret_basic"], extra: "access_tokens:\n  profile: rfc9068\n").yaml)
        let token = try await Self.token(server, client: "jwt-es256", resource: Self.audience)

        let accepted = try await Self.run(home, ["service", "--audience", Self.audience], token: token)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let principal = try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any]
        #expect(principal?["client_id"] as? String == (try server.client("jwt-es256")).clientID)
        #expect(principal?["source"] as? String == "jwt")
        #expect(!accepted.stdout.contains(token) && !accepted.stderr.contains(token))

        let refused = try await Self.run(home, ["service", "--audience", "https://another.example"], token: token)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("REFUSED (invalid_token, HTTP 401)"))
        #expect(refused.stderr.contains("`aud` lacks `https://another.example`"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(token) && refused.stdout.isEmpty)
    }

    /// `format: both` verifies a JWT with the provider's keys and never introspects it: no introspection client is
    /// needed for it, and the line says what was checked and what was not.
    @Test func aJWTUnderFormatBothNeedsNoIntrospectionClient() async throws {
        let server = try TestServiceServer.require()
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        _ = try home.write(
            "providers/service.yaml",
            server.descriptor(methods: ["client_secret_basic"], extra: "access_tokens:\n  format: both\n  profile: rfc9068\n").yaml)
        let token = try await Self.token(server, client: "jwt-es256", resource: Self.audience)
        let accepted = try await Self.run(home, ["service", "--audience", Self.audience], token: token)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stderr.contains("Accepted: checked signature"), "\(accepted.stderr)")
        #expect(accepted.stderr.contains("audience") && accepted.stderr.contains("NOT checked: revocation"), "\(accepted.stderr)")
        let principal = try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any]
        #expect(principal?["audience_checked"] as? Bool == true)
    }

    @Test func anOpaqueTokenIsIntrospectedWithTheClientsFileClient() async throws {
        let server = try TestServiceServer.require()
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        _ = try home.write(
            "providers/service.yaml", server.descriptor(methods: ["client_secret_basic"], extra: "access_tokens:\n  format: opaque\n").yaml)
        let introspector = try server.client("basic")
        _ = try home.write("config/oauthflow/clients.yaml", "service:\n  client_id: \(introspector.clientID)\n  client_secret_env: VERIFY_SECRET\n")
        let token = try await Self.token(server, client: "basic", resource: Self.audience)
        let secret = ["VERIFY_SECRET": try #require(introspector.clientSecret)]
        let accepted = try await Self.run(home, ["service", "--audience", Self.audience], token: token, extra: secret)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stderr.contains("introspected by the provider"))
        let garbage = try await Self.run(home, ["service", "--audience", Self.audience], token: "not-a-token-the-server-issued", extra: secret)
        #expect(garbage.status == 1)
        #expect(garbage.stderr.contains("is not active"), "\(garbage.stderr)")
    }
}
