import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// `oauthflow lint --online` and `oauthflow jwt decode` against Django OAuth Toolkit.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct OIDCCLITests {
    typealias Server = TestAuthorizationServer

    @Test func onlineLintComparesWithTheServer() async throws {
        let server = try Server.require()
        let fixture = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml"), encoding: .utf8)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("django.yaml", fixture)
        // DOT's metadata lists only client_secret_post and client_secret_basic, though it serves public clients:
        // a gap in the metadata, so a warning (an error only under --strict).
        let result = try await runProduct("oauthflow", ["lint", "--online", "--var", "port=\(server.port)", directory.url.path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("warning: client authentication `none` is not in the server's token_endpoint_auth_methods_supported"))
        #expect(result.stdout.contains("[online_client_auth]"))
        let strict = try await runProduct("oauthflow", ["lint", "--online", "--strict", "--var", "port=\(server.port)", directory.url.path])
        #expect(strict.status == 1)
        #expect(!result.stdout.contains("[online_endpoint]"))
        #expect(!result.stdout.contains("[online_pkce_s256]"), "DOT publishes S256")

        // Recorded under `discovery.lacks`, the gap is advice that names it, and no longer a warning.
        try directory.write("django.yaml", fixture.replacingOccurrences(
            of: "discovery:\n  mode: oidc\n", with: "discovery:\n  mode: oidc\n  lacks:\n    - token_endpoint_auth_methods_supported: [none]\n"))
        let acknowledged = try await runProduct("oauthflow", ["lint", "--online", "--var", "port=\(server.port)", directory.url.path])
        #expect(acknowledged.stdout.contains(
            "info: acknowledged by `discovery.lacks` (token_endpoint_auth_methods_supported: none): client authentication `none` is not in the server's token_endpoint_auth_methods_supported"),
                "\(acknowledged.stdout)")
        #expect(!acknowledged.stdout.contains("warning: client authentication `none`"), "\(acknowledged.stdout)")
        try directory.write("django.yaml", fixture)

        let drifted = fixture
            .replacingOccurrences(of: "  methods: [none, client_secret_basic, client_secret_post]", with: "  method: client_secret_basic")
            .replacingOccurrences(of: "userinfo: http://127.0.0.1:{port}/o/userinfo/", with: "userinfo: http://127.0.0.1:{port}/o/me/")
            .replacingOccurrences(of: "issuer: http://127.0.0.1:{port}/o", with: "issuer: http://127.0.0.1:{port}/o/")
            .replacingOccurrences(of: "  pkce: required", with: "  pkce: supported")
        try directory.write("django.yaml", drifted)
        let second = try await runProduct("oauthflow", ["lint", "--online", "--var", "port=\(server.port)", directory.url.path])
        #expect(second.stdout.contains("[online_issuer]"), "\(second.stdout)")

        try directory.write("django.yaml", drifted.replacingOccurrences(of: "issuer: http://127.0.0.1:{port}/o/", with: "issuer: http://127.0.0.1:{port}/o"))
        let third = try await runProduct("oauthflow", ["lint", "--online", "--var", "port=\(server.port)", directory.url.path])
        #expect(third.status == 0, "\(third.stdout)")
        #expect(third.stdout.contains("`endpoints.userinfo` is http://127.0.0.1:\(server.port)/o/me/ but the server publishes"))
    }

    /// What the descriptor asks for against what DOT publishes: its scopes_supported lists openid, profile,
    /// email and read, so asking for `offline_access` too is a warning naming both sides.
    @Test func onlineLintComparesAskedForScopesWithTheServer() async throws {
        let server = try Server.require()
        let fixture = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml"), encoding: .utf8)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let original = "scopes:\n  default: [openid, profile, email, read]\n"
        #expect(fixture.contains(original))
        try directory.write("django.yaml", fixture.replacingOccurrences(
            of: original, with: original + "  offline:\n    scopes: [offline_access]\n    params: {prompt: consent}\n"))
        let result = try await runProduct("oauthflow", ["lint", "--online", "--var", "port=\(server.port)", directory.url.path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("the descriptor asks for the scope `offline_access`, which the server's scopes_supported (openid, profile, email, read) does not list; if the provider takes it all the same, record that with `- scopes_supported: [offline_access]` under `discovery.lacks` [online_scopes]"),
                "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "[online_scopes]").count == 2, "only offline_access: \(result.stdout)")
        #expect(!result.stderr.contains("checked online with"), "every variable was given: \(result.stderr)")
    }

    @Test func unreachableServerIsAWarningNotACrash() async throws {
        let fixture = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml"), encoding: .utf8)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("django.yaml", fixture)
        // Port 9 (discard) on loopback: nothing listens there.
        let result = try await runProduct("oauthflow", ["lint", "--online", "--var", "port=9", directory.url.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("warning: cannot check online"))
        #expect(result.stdout.contains("[online_unreachable]"))
    }

    @Test func jwtDecodeShowsAndVerifies() async throws {
        let server = try Server.require()
        let tokens = try await server.signedInTokens(try server.provider())
        let idToken = try #require(tokens.idToken).value
        let providers = ["--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"]

        let plain = try await runProduct("oauthflow", ["jwt", "decode", idToken])
        #expect(plain.status == 0)
        #expect(plain.stderr.contains("UNVERIFIED"))
        #expect(plain.stdout.contains("\"alg\" : \"RS256\""))
        #expect(plain.stdout.contains("\"aud\" : \"\(Server.publicClientID)\""))

        let verified = try await runProduct("oauthflow", ["jwt", "decode", idToken, "--verify", "django", "--var", "port=\(server.port)",
                                                          "--client-id", Server.publicClientID] + providers)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("Verified against"))

        let wrongAudience = try await runProduct("oauthflow", ["jwt", "decode", idToken, "--verify", "django", "--var", "port=\(server.port)",
                                                               "--client-id", "someone-else"] + providers)
        #expect(wrongAudience.status == 1)
        #expect(wrongAudience.stderr.contains("NOT VERIFIED"))

        var parts = idToken.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let tampered = try await runProduct("oauthflow", ["jwt", "decode", parts.joined(separator: "."), "--verify", "django",
                                                          "--var", "port=\(server.port)"] + providers)
        #expect(tampered.status == 1)
        #expect(tampered.stderr.contains("signature does not verify"))

        let garbage = try await runProduct("oauthflow", ["jwt", "decode", "not-a-jwt"])
        #expect(garbage.status == 1)
        #expect(garbage.stderr.contains("three dot-separated parts"))

        // A token that starts with `-` is a bad token, not an unknown flag.
        let dashed = try await runProduct("oauthflow", ["jwt", "decode", "-x.y.z"])
        #expect(dashed.status == 1, "\(dashed.stderr)")
        #expect(dashed.stderr.contains("not base64url-encoded JSON"))

        // Claims nested beyond any real token's are refused, not printed as `{}`.
        let deep = Base64URL.encode(Data((#"{"sub":"x","n":"# + String(repeating: "[", count: 500) + String(repeating: "]", count: 500) + "}").utf8))
        let nested = try await runProduct("oauthflow", ["jwt", "decode", "\(parts[0]).\(deep).sig"])
        #expect(nested.status == 1)
        #expect(nested.stderr.contains("nests deeper"))
        #expect(nested.stdout.isEmpty)
    }

    @Test func jwtDecodeVerifiesWithDiscoveredKeys() async throws {
        let server = try Server.require()
        let tokens = try await server.signedInTokens(try server.provider())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauthflow-jwks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try String(contentsOfFile: "Tests/OAuthFlowTests/Fixtures/providers/django.yaml", encoding: .utf8)
        let withoutKeys = fixture.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("jwks:") }.joined(separator: "\n")
        #expect(withoutKeys != fixture)
        try withoutKeys.write(to: directory.appendingPathComponent("django.yaml"), atomically: true, encoding: .utf8)
        let verified = try await runProduct("oauthflow", ["jwt", "decode", try #require(tokens.idToken).value, "--verify", "django",
                                                          "--var", "port=\(server.port)", "--client-id", Server.publicClientID,
                                                          "--providers-dir", directory.path])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("Verified against"))
    }
}
