import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// A descriptor id re-pointed at another server after the sign-in (what `providers add --force` does): every command that
/// hands a stored token out refuses the old server's session, as `userinfo` and `token refresh` do, where `token print`,
/// `credential kubectl --access-token` and `credential git get` once printed the old server's access token as the new
/// one's. The launcher, which reads no YAML, answers only while the full command's check of the session still holds.
@Suite final class SessionOriginCLITests {
    let installed: InstalledLauncher
    var root: TemporaryDirectory { installed.root }
    var home: URL { installed.home }
    var state: URL { installed.state }
    var descriptorFile: URL { home.appendingPathComponent(".config/oauthflow/providers/mine.yaml") }
    let gitRequest = "protocol=https\nhost=git.example.com\n\n"

    init() throws {
        installed = try InstalledLauncher()
        _ = try root.write(
            "home/.config/oauthflow/clients.yaml",
            """
            mine:
              client_id: app-1
            credential_helpers:
              git:
                - url: https://git.example.com
                  provider: mine
            """)
        try point(at: "https://auth.example.com")
    }

    deinit { installed.cleanUp() }

    /// Writes the user's descriptor `mine`, its authorization server at `issuer`.
    func point(at issuer: String) throws {
        try FileManager.default.createDirectory(at: descriptorFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try TestDescriptor(id: "mine", issuer: issuer).yaml.write(to: descriptorFile, atomically: true, encoding: .utf8)
    }

    func save(marked: Bool = false) async throws {
        var session = StoredSession(
            key: SessionKey(providerID: "mine"), variables: [:], clientID: "app-1", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
            tokens: TokenSet(
                accessToken: Secret("at-of-auth-example"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600),
                refreshToken: Secret("rt-of-auth-example"), idToken: Secret("id-of-auth-example"), scopes: ["read"], issuedAt: Date()),
            updatedAt: Date(), authorizationServer: "https://auth.example.com")
        if marked {
            session.reauthenticationRequired = .init(event: "https://schemas.openid.net/secevent/caep/event-type/credential-change", markedAt: Date())
        }
        try await FileTokenStore(directory: state).save(session)
    }

    /// A session a security event marked for a new sign-in hands out no token of any kind, where `token print --kind
    /// refresh|id` once printed them (only the access token was refused).
    @Test func aMarkedSessionPrintsNoTokenOfAnyKind() async throws {
        try await save(marked: true)
        for kind in ["access", "refresh", "id"] {
            let refused = try await run(["token", "print", "mine", "--kind", kind])
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(kind): \(refused.stdout)")
            #expect(refused.stderr.contains("sign in again"), "\(kind): \(refused.stderr)")
        }
    }

    func run(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await installed.run(arguments, input: input)
    }

    func withoutTheFullCommand<T>(_ body: () async throws -> T) async throws -> T {
        try await installed.withoutTheFullCommand(body)
    }

    @Test func everyCommandThatHandsOutATokenRefusesTheOldServersSession() async throws {
        try await save()
        // The server that issued it: each command hands the token out, and the launcher learns the check held.
        let printed = try await run(["token", "print", "mine"])
        #expect(printed.status == 0 && printed.stdout == "at-of-auth-example\n", "\(printed.stderr)")
        let git = try await run(["credential", "git", "get"], input: gitRequest)
        #expect(git.status == 0 && git.stdout.contains("password=at-of-auth-example"), "\(git.stderr)")
        try await withoutTheFullCommand { () async throws -> Void in
            #expect(try await run(["token", "print", "mine"]).stdout == "at-of-auth-example\n")
            #expect(try await run(["credential", "git", "get"], input: gitRequest).stdout.contains("password=at-of-auth-example"))
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        try point(at: "https://other.example.com")
        // The launcher no longer answers: what its check read has changed.
        try await withoutTheFullCommand { () async throws -> Void in
            #expect(try await run(["token", "print", "mine"]).status == 127)
            #expect(try await run(["credential", "git", "get"], input: gitRequest).status == 127)
        }
        for (arguments, input) in [
            (["token", "print", "mine"], nil), (["credential", "kubectl", "mine", "--access-token"], nil),
            (["credential", "kubectl", "mine"], nil), (["credential", "git", "get"], gitRequest), (["userinfo", "mine"], nil),
        ] as [([String], String?)] {
            let refused = try await run(arguments, input: input)
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(arguments): \(refused.stdout) \(refused.stderr)")
            #expect(
                refused.stderr.contains("cannot be used here") && refused.stderr.contains("https://auth.example.com"),
                "\(arguments): \(refused.stderr)")
            #expect(!refused.stderr.contains("at-of-auth-example") && !refused.stderr.contains("rt-of-auth-example"))
        }
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("mine--default.json").path), "the session is kept")
    }
}
