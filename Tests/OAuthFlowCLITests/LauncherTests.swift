import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

/// The installed layout: the launcher as `oauthflow`, the full command beside it as `oauthflow-full`.
///
/// Each fast path is proved by taking `oauthflow-full` away: the launcher still answers. Each way back to the
/// full command is proved the other way round: without it, the launcher says it is missing (exit 127).
@Suite final class LauncherTests {
    let installed: InstalledLauncher
    var root: TemporaryDirectory { installed.root }
    var bin: URL { installed.bin }
    var home: URL { installed.home }
    var state: URL { installed.state }
    var environment: [String: String] { installed.environment }

    init() throws {
        installed = try InstalledLauncher()
        _ = try root.write(
            "home/.config/oauthflow/clients.yaml",
            """
            github:
              client_id: abc
            credential_helpers:
              git:
                - url: https://github.com
                  provider: github
                  username: x-access-token
            """)
    }

    deinit { installed.cleanUp() }

    func save(expiresIn seconds: TimeInterval?) async throws {
        try await FileTokenStore(directory: state).save(
            StoredSession(
                key: SessionKey(providerID: "github"), variables: [:], clientID: "abc", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
                tokens: TokenSet(
                    accessToken: Secret("gho_launcher"), tokenType: "bearer", expiresAt: seconds.map { Date().addingTimeInterval($0) },
                    refreshToken: nil, idToken: nil, scopes: ["read:user"], issuedAt: Date()),
                updatedAt: Date()))
    }

    func run(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await installed.run(arguments, input: input)
    }

    func withoutTheFullCommand<T>(_ body: () async throws -> T) async throws -> T {
        try await installed.withoutTheFullCommand(body)
    }

    @Test func printsAValidTokenByItselfAndHandsTheRestOver() async throws {
        try await save(expiresIn: 3600)
        let full = try await run(["token", "print", "github"])
        #expect(full.status == 0 && full.stdout == "gho_launcher\n", "\(full.stderr)")
        try await withoutTheFullCommand { () async throws -> Void in
            for arguments in [
                ["token", "print", "github"], ["token", "print", "--account", "default", "github"], ["token", "print", "github", "--kind=access"],
            ] {
                let fast = try await run(arguments)
                #expect(fast.status == 0 && fast.stdout == "gho_launcher\n", "\(arguments): \(fast.stderr)")
            }
            // Options only the full command knows, another token, another session: the full command's.
            for arguments in [
                ["token", "print", "github", "--kind", "refresh"], ["token", "print", "github", "--verbose"], ["token", "print", "gitlab"],
                ["token", "show", "github"], ["--help"], [],
            ] {
                let handed = try await run(arguments)
                #expect(handed.status == 127 && handed.stderr.contains("oauthflow-full"), "\(arguments): \(handed.stderr)")
            }
        }
        // What the full command answers, through the launcher, is unchanged.
        let help = try await run(["token", "print", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--kind"))
    }

    @Test func anExpiredTokenGoesToTheFullCommand() async throws {
        try await save(expiresIn: -60)
        try await withoutTheFullCommand { () async throws -> Void in
            #expect(try await run(["token", "print", "github"]).status == 127)
        }
        let full = try await run(["token", "print", "github"])
        #expect(full.status == 1 && full.stdout.isEmpty, "\(full.stderr)")
    }

    @Test func answersGitFromTheMemoTheFullCommandLeft() async throws {
        try await save(expiresIn: 3600)
        let request = "protocol=https\nhost=github.com\n\n"
        let expected = "username=x-access-token\npassword=gho_launcher\npassword_expiry_utc="
        // No memo yet: the full command answers (git's request reaches it whole) and leaves one.
        try await withoutTheFullCommand { () async throws -> Void in #expect(try await run(["credential", "git", "get"], input: request).status == 127) }
        let first = try await run(["credential", "git", "get"], input: request)
        #expect(first.status == 0 && first.stdout.hasPrefix(expected), "\(first.stderr)")
        let other = "protocol=https\nhost=gitlab.example\n\n"
        #expect(try await run(["credential", "git", "get"], input: other).stdout.isEmpty)
        try await withoutTheFullCommand { () async throws -> Void in
            let fast = try await run(["credential", "git", "get"], input: request)
            #expect(fast.status == 0 && fast.stdout == first.stdout, "\(fast.stderr)")
            // Not ours: nothing, so git asks its next helper; `store` has nothing to do.
            let unmapped = try await run(["credential", "git", "get"], input: other)
            #expect(unmapped.status == 0 && unmapped.stdout.isEmpty, "\(unmapped.stderr)")
            #expect(try await run(["credential", "git", "store"], input: request + "password=x\n").status == 0)
            // Another request, a malformed one, another operation: the full command's.
            #expect(try await run(["credential", "git", "get"], input: "protocol=https\nhost=github.com\npath=org/repo\n\n").status == 127)
            #expect(try await run(["credential", "git", "get"], input: "garbage\n").status == 127)
            #expect(try await run(["credential", "git", "approve"], input: request).status == 127)
        }
        // An edit of clients.yaml forgets the memo.
        try await Task.sleep(nanoseconds: 20_000_000)
        let clients = home.appendingPathComponent(".config/oauthflow/clients.yaml")
        try (try String(contentsOf: clients, encoding: .utf8) + "\n").write(to: clients, atomically: false, encoding: .utf8)
        try await withoutTheFullCommand { () async throws -> Void in #expect(try await run(["credential", "git", "get"], input: request).status == 127) }
        #expect(try await run(["credential", "git", "get"], input: request).stdout.hasPrefix(expected))
        // `erase` forgets the session, as the full command does.
        try await withoutTheFullCommand { () async throws -> Void in #expect(try await run(["credential", "git", "erase"], input: request).status == 0) }
        #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("github--default.json").path))
    }

    /// git's request reaches the full command whole, however large: at the 64 KiB the full command reads, it answers;
    /// one byte over, it refuses the request by its size, which it can only do having been handed every byte.
    @Test func aRequestOfAnySizeReachesTheFullCommandWhole() async throws {
        try await save(expiresIn: 3600)
        let request = "protocol=https\nhost=github.com\n"
        let padding = "x" + String(repeating: "y", count: GitCredentialLines.maximumSize - request.utf8.count - "x=\n\n".utf8.count - 1)
        let largest = request + "x=" + padding + "\n\n"
        #expect(largest.utf8.count == GitCredentialLines.maximumSize)
        let answered = try await run(["credential", "git", "get"], input: largest)
        #expect(answered.status == 0 && answered.stdout.hasPrefix("username=x-access-token\npassword=gho_launcher\n"), "\(answered.stderr)")
        let refused = try await run(["credential", "git", "get"], input: largest + "z")
        #expect(refused.status == 1 && refused.stderr.contains("larger than 64 KiB"), "\(refused.stderr)")
    }

    @Test func oddCallsGetTheFullCommandsAnswer() async throws {
        try await save(expiresIn: 3600)
        try await withoutTheFullCommand { () async throws -> Void in
            // The argument parser refuses `--account=` without a value; the launcher does not answer it either.
            #expect(try await run(["token", "print", "github", "--account="]).status == 127)
        }
        // Installed the wrong way round, the launcher says so instead of running itself forever.
        let full = bin.appendingPathComponent("oauthflow-full")
        let destination = try FileManager.default.destinationOfSymbolicLink(atPath: full.path)
        try FileManager.default.removeItem(at: full)
        defer {
            try? FileManager.default.removeItem(at: full)
            try? FileManager.default.createSymbolicLink(atPath: full.path, withDestinationPath: destination)
        }
        try FileManager.default.createSymbolicLink(at: full, withDestinationURL: bin.appendingPathComponent("oauthflow"))
        let looped = try await run(["token", "show", "github"])
        #expect(looped.status == 126 && looped.stderr.contains("is this launcher"), "\(looped.stderr)")
    }

    /// Output that cannot be written (a full disk, a closed stream) ends the full command with 1, not a crash.
    @Test func anUnwritableStandardOutputIsExitOne() async throws {
        let full = try builtProduct("oauthflow").path
        for redirect in [">/dev/full", ">&-"] {
            let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "\"$0\" providers list \(redirect)", full])
            #expect(result.status == 1, "\(redirect): \(result.status) \(result.stderr.prefix(300))")
        }
    }

    @Test func aBuildDirectoryLauncherRunsTheOauthflowBesideIt() async throws {
        let result = try await runProduct("oauthflow-launcher", ["providers", "list"], environment: environment)
        #expect(result.status == 0 && result.stdout.contains("github"), "\(result.stderr)")
    }

    /// `providers list` is printed from what the full command wrote while nothing it read has changed: shown by
    /// changing the memo's text, which only the launcher prints. A descriptor added, other arguments, a memo that is
    /// not private: the full command's answer.
    @Test func providersListIsPrintedFromTheMemoWhileNothingChanged() async throws {
        let first = try await run(["providers", "list"])
        #expect(first.status == 0 && first.stdout.contains("github"), "\(first.stderr)")
        let path = ProviderListMemo.path(sessionDirectory: state.path)
        var memo = try #require(ProviderListMemo.read(sessionDirectory: state.path), "the full command left a memo")
        #expect(Array(memo.output) == Array(first.stdout.utf8) && Array(memo.errors) == Array(first.stderr.utf8))
        memo.output = Array("from the memo\n".utf8)[...]
        try Data(memo.rendered()).write(to: URL(fileURLWithPath: path))
        let fast = try await run(["providers", "list"])
        #expect(fast.status == 0 && fast.stdout == "from the memo\n", "\(fast.stderr)")

        // Other arguments: the full command's listing.
        let json = try await run(["providers", "list", "--json"])
        #expect(json.status == 0 && json.stdout.hasPrefix("["), "\(json.stderr)")
        let verbose = try await run(["providers", "list", "--verbose"])
        #expect(verbose.stdout.contains("github") && !verbose.stdout.contains("from the memo"))

        // A memo others may read is not read.
        chmod(path, 0o644)
        #expect(try await run(["providers", "list"]).stdout.contains("github"))
        // (That listing left a memo of its own, private again.)
        try Data(memo.rendered()).write(to: URL(fileURLWithPath: path))
        #expect(try await run(["providers", "list"]).stdout == "from the memo\n")

        // A descriptor of the user's: the full command's listing, with it.
        _ = try root.write(
            "home/.config/oauthflow/providers/zzz.yaml",
            """
            schema_version: 1
            id: zzz
            display_name: Added Later
            protocol: oauth2
            endpoints:
              authorization: https://zzz.example.com/authorize
              token: https://zzz.example.com/token
            security:
              iss_parameter: absent
            """)
        let added = try await run(["providers", "list"])
        #expect(added.status == 0 && added.stdout.contains("Added Later") && !added.stdout.contains("from the memo"), "\(added.stderr)")
    }
}
