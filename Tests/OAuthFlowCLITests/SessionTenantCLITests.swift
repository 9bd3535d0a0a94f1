import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// A session signed in for one tenant of a provider (its `host` variable) is not handed to a tool that means another:
/// `credential git get` for a remote whose mapping (or clients-file entry) names another host, and `credential
/// kubectl --var host=…`, once printed the first tenant's access token for the second. The launcher, which reads no
/// YAML, answers only while the session is the one the full command checked against the mapping.
@Suite final class SessionTenantCLITests {
    let installed: InstalledLauncher
    var state: URL { installed.state }
    static let codeRequest = "protocol=https\nhost=code.example.com\n\n"
    static let otherRequest = "protocol=https\nhost=git.other.com\n\n"

    init() throws {
        installed = try InstalledLauncher()
        _ = try installed.root.write(
            "home/.config/oauthflow/providers/tenant.yaml",
            """
            schema_version: 1
            id: tenant
            display_name: Tenant
            protocol: oauth2
            issuer: https://{host}
            variables:
              host:
                description: The tenant's host
                pattern: '^[a-z0-9.-]+$'
                example: code.example.com
            endpoints:
              authorization: https://{host}/authorize
              token: https://{host}/token
            client_auth:
              methods: [none]

            """)
        _ = try installed.root.write(
            "home/.config/oauthflow/providers/defaulted.yaml",
            """
            schema_version: 1
            id: defaulted
            display_name: Defaulted
            protocol: oauth2
            issuer: https://{host}
            variables:
              host:
                description: The tenant's host
                pattern: '^[a-z0-9.-]+$'
                default: code.default.com
            endpoints:
              authorization: https://{host}/authorize
              token: https://{host}/token
            client_auth:
              methods: [none]

            """)
        // The entry names a secret variable git's environment lacks: its variables still say which tenant is meant.
        _ = try installed.root.write(
            "home/.config/oauthflow/clients.yaml",
            """
            tenant:
              client_id: app-1
              client_secret_env: TENANT_SECRET_NOT_SET
              variables:
                host: code.example.com
            defaulted:
              client_id: app-2
            credential_helpers:
              git:
                - url: https://code.example.com
                  provider: tenant
                - url: https://git.other.com
                  provider: tenant
                  variables:
                    host: other.example.com
                - url: https://code.default.com
                  provider: defaulted
            """)
    }

    deinit { installed.cleanUp() }

    /// Stores the default session of `provider`, signed in with `host`.
    func save(host: String, provider: String = "tenant", clientID: String = "app-1") async throws {
        try await FileTokenStore(directory: state).save(
            StoredSession(
                key: SessionKey(providerID: provider), variables: ["host": host], clientID: clientID,
                redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
                tokens: TokenSet(
                    accessToken: Secret("at-of-\(host)"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600),
                    refreshToken: Secret("rt-of-\(host)"), idToken: nil, scopes: ["read"], issuedAt: Date()),
                updatedAt: Date(), authorizationServer: "https://\(host)"))
    }

    /// Refused, naming the variable, and no token of the session printed.
    func expectRefused(_ arguments: [String], input: String? = nil, host: String) async throws {
        let refused = try await installed.run(arguments, input: input)
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(arguments): \(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("cannot be used here") && refused.stderr.contains("host=\(host)"), "\(arguments): \(refused.stderr)")
        #expect(!refused.stderr.contains("at-of-") && !refused.stderr.contains("rt-of-"))
    }

    @Test func aSessionOfAnotherTenantIsNotHandedToAToolThatMeansThisOne() async throws {
        try await save(host: "code.example.com")
        let git = try await installed.run(["credential", "git", "get"], input: Self.codeRequest)
        #expect(git.status == 0 && git.stdout.contains("password=at-of-code.example.com"), "\(git.stderr)")
        // The mapping of git.other.com names another host: the clients file's tenant is not the one meant there.
        try await expectRefused(["credential", "git", "get"], input: Self.otherRequest, host: "code.example.com")
        try await expectRefused(["credential", "kubectl", "tenant", "--access-token", "--var", "host=other.example.com"], host: "code.example.com")
        try await expectRefused(["credential", "kubectl", "tenant", "--var", "host=other.example.com"], host: "code.example.com")

        // Signed in since for another tenant under the same name, and handed out for it (so the launcher's memo vouches
        // for that session): the launcher no longer answers code.example.com from its memo, and the full command refuses.
        try await save(host: "other.example.com")
        let other = try await installed.run(["credential", "git", "get"], input: Self.otherRequest)
        #expect(other.status == 0 && other.stdout.contains("password=at-of-other.example.com"), "\(other.stderr)")
        try await installed.withoutTheFullCommand { () async throws -> Void in
            #expect(try await installed.run(["credential", "git", "get"], input: Self.otherRequest).stdout.contains("at-of-other.example.com"))
            let code = try await installed.run(["credential", "git", "get"], input: Self.codeRequest)
            #expect(code.status == 127 && !code.stdout.contains("at-of-"), "\(code.stdout)")
        }
        try await expectRefused(["credential", "git", "get"], input: Self.codeRequest, host: "other.example.com")
        // `token print` names no variables: it hands out the session by its name, as signed in.
        #expect(try await installed.run(["token", "print", "tenant"]).stdout == "at-of-other.example.com\n")
    }

    /// A variable left to the descriptor's default is meant too: a remote mapped without variables to a provider whose
    /// `host` defaults to code.default.com gets no session signed in for another host.
    @Test func aDefaultValueIsMeantToo() async throws {
        try await save(host: "elsewhere.example.com", provider: "defaulted", clientID: "app-2")
        let refused = try await installed.run(["credential", "git", "get"], input: "protocol=https\nhost=code.default.com\n\n")
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused.stdout)")
        #expect(refused.stderr.contains("host=elsewhere.example.com") && refused.stderr.contains("the descriptor's default"), "\(refused.stderr)")
        try await save(host: "code.default.com", provider: "defaulted", clientID: "app-2")
        let answered = try await installed.run(["credential", "git", "get"], input: "protocol=https\nhost=code.default.com\n\n")
        #expect(answered.status == 0 && answered.stdout.contains("password=at-of-code.default.com"), "\(answered.stderr)")
    }
}
