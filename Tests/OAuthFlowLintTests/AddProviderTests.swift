import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

import OAuthFlowLint

/// `OAuth.addProvider(issuer:)`: a drafted descriptor linted, written atomically, then resolved and checked online.
@Suite struct AddProviderTests {
    static let issuer = "https://sso.example.com/realms/ops"

    /// Documents from a rich OpenID provider down to bare RFC 8414 metadata: every draft must lint clean.
    static let documents: [(name: String, oidc: String?, rfc8414: String?)] = [
        (
            "keycloak-like",
            #"""
            {"issuer":"https://sso.example.com/realms/ops","authorization_endpoint":"https://sso.example.com/realms/ops/auth",
             "token_endpoint":"https://sso.example.com/realms/ops/token","userinfo_endpoint":"https://sso.example.com/realms/ops/userinfo",
             "jwks_uri":"https://sso.example.com/realms/ops/certs","end_session_endpoint":"https://sso.example.com/realms/ops/logout",
             "revocation_endpoint":"https://sso.example.com/realms/ops/revoke","device_authorization_endpoint":"https://sso.example.com/realms/ops/device",
             "grant_types_supported":["authorization_code","implicit","refresh_token","password","client_credentials",
               "urn:ietf:params:oauth:grant-type:device_code","urn:ietf:params:oauth:grant-type:token-exchange"],
             "code_challenge_methods_supported":["plain","S256"],
             "token_endpoint_auth_methods_supported":["private_key_jwt","client_secret_basic","client_secret_post","tls_client_auth","client_secret_jwt","none"],
             "token_endpoint_auth_signing_alg_values_supported":["RS256","ES256","HS256"],
             "id_token_signing_alg_values_supported":["RS256","ES256"],"scopes_supported":["openid","profile","email","offline_access"],
             "authorization_response_iss_parameter_supported":true,"dpop_signing_alg_values_supported":["ES256","RS256"],
             "backchannel_logout_supported":true,"backchannel_logout_session_supported":true,
             "frontchannel_logout_supported":true,"frontchannel_logout_session_supported":false}
            """#,
            nil
        ),
        (
            "openid-minimal",
            #"{"issuer":"https://sso.example.com/realms/ops","authorization_endpoint":"https://sso.example.com/realms/ops/a","token_endpoint":"https://sso.example.com/realms/ops/t","jwks_uri":"https://sso.example.com/realms/ops/k"}"#,
            nil
        ),
        (
            "rfc8414-only",
            nil,
            #"{"issuer":"https://sso.example.com/realms/ops","authorization_endpoint":"https://sso.example.com/a","token_endpoint":"https://sso.example.com/t","code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none"],"grant_types_supported":["authorization_code","refresh_token"]}"#
        ),
        (
            "services-only",
            nil,
            #"{"issuer":"https://sso.example.com/realms/ops","token_endpoint":"https://sso.example.com/t","token_endpoint_auth_methods_supported":["private_key_jwt","client_secret_basic"],"grant_types_supported":["client_credentials"]}"#
        ),
    ]

    static func server(oidc: String?, rfc8414: String?) -> ScriptedTransport {
        ScriptedTransport { request, _ in
            let path = request.url.path
            let body = path.hasSuffix("/openid-configuration") ? oidc : path.hasPrefix("/.well-known/oauth-authorization-server") ? rfc8414 : nil
            guard let body else { return TransportResponse(status: 404) }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
    }

    static func oauth(_ transport: ScriptedTransport, directory: URL) -> OAuth {
        OAuth(OAuth.Configuration(providerDirectories: [directory], environment: OAuthEnvironment(transport: transport)))
    }

    @Test(arguments: documents.indices)
    func aWrittenDescriptorLintsCleanResolvesAndMatchesTheDocumentOnline(_ index: Int) async throws {
        let (name, oidc, rfc8414) = Self.documents[index]
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let transport = Self.server(oidc: oidc, rfc8414: rfc8414)
        let added = try await Self.oauth(transport, directory: directory.url).addProvider(issuer: Self.issuer, id: "ops")
        #expect(added.file == directory.url.appendingPathComponent("ops.yaml"), "\(name)")
        #expect(try String(contentsOf: added.file, encoding: .utf8) == added.draft.text)
        // Strict lint of the file as written: no error, no warning.
        let findings = try Linter().lint(paths: [added.file]).filter { $0.severity != .info }
        #expect(findings.isEmpty, "\(name): \(findings)\n\(added.draft.text)")
        // The registry finds it by id, and it resolves with its endpoints from the live document.
        let descriptor = try ProviderRegistry.descriptor(named: "ops", directories: [directory.url])
        let provider = try await descriptor.resolve([:]).discovered(environment: OAuthEnvironment(transport: transport))
        #expect(provider.endpoints.token != nil, "\(name)")
        // And `lint --online` against the same document finds nothing to contradict.
        let file = LintFile(document: DescriptorDocument.load(contentsOf: added.file))
        let online = await OnlineChecker(transport: transport).check(file).filter { $0.severity != .info }
        #expect(online.isEmpty, "\(name): \(online)\n\(added.draft.text)")
        // Only the file: no temporary file left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["ops.yaml"])
    }

    @Test func aFileAlreadyThereIsReplacedOnlyWhenAsked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let mine = try directory.write("ops.yaml", "# my own\n")
        let oauth = Self.oauth(Self.server(oidc: Self.documents[1].oidc, rfc8414: nil), directory: directory.url)
        let error = try await #require(throws: AddProviderError.self) { try await oauth.addProvider(issuer: Self.issuer, id: "ops") }
        #expect(error.code == .fileExists)
        #expect(try String(contentsOf: mine, encoding: .utf8) == "# my own\n")
        // A dangling link counts as something there: writing through it could land anywhere.
        try FileManager.default.createSymbolicLink(
            atPath: directory.url.appendingPathComponent("other.yaml").path, withDestinationPath: "/nonexistent/x")
        await #expect(throws: AddProviderError.self) { try await oauth.addProvider(issuer: Self.issuer, id: "other") }
        let replaced = try await oauth.addProvider(issuer: Self.issuer, id: "ops", replacing: true)
        #expect(try String(contentsOf: mine, encoding: .utf8) == replaced.draft.text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["ops.yaml", "other.yaml"])
    }

    @Test func aDraftThatDoesNotLintCleanIsNotWritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let metadata = try JSONDecoder().decode(ServerMetadata.self, from: Data(try #require(Self.documents[1].oidc).utf8))
        let url = try #require(URL(string: Self.issuer))
        // An id the descriptor format refuses, past read()'s own check: the linter is the last word.
        let draft = try DescriptorDraft(
            id: "Ops", issuer: url, metadata: metadata, metadataURL: url.appendingPathComponent(".well-known/openid-configuration"), mode: .oidc,
            readAt: Date())
        let error = try #require(throws: AddProviderError.self) { try draft.write(into: directory.url) }
        #expect(error.code == .notClean)
        #expect(!error.findings.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func withoutADirectoryNothingIsRead() async throws {
        let transport = Self.server(oidc: Self.documents[1].oidc, rfc8414: nil)
        let oauth = OAuth(OAuth.Configuration(environment: OAuthEnvironment(transport: transport)))
        let error = try await #require(throws: AddProviderError.self) { try await oauth.addProvider(issuer: Self.issuer) }
        #expect(error.code == .noDirectory)
        #expect(transport.count("/realms/ops/.well-known/openid-configuration") == 0)
    }
}

/// `lint --online`'s `online_id_token_algs`: a claim about ID token algorithms the document contradicts.
@Suite struct OnlineIDTokenAlgorithmTests {
    static let descriptor = """
        schema_version: 1
        id: example
        display_name: Example
        protocol: oidc
        issuer: https://auth.example.com
        discovery:
          mode: oidc
        scopes:
          default: [openid]
        """

    static func findings(_ security: String, published: String?) async -> [Diagnostic] {
        let algorithms = published.map { #", "id_token_signing_alg_values_supported": \#($0)"# } ?? ""
        let document = #"{"issuer": "https://auth.example.com", "code_challenge_methods_supported": ["S256"]\#(algorithms)}"#
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 200, body: Data(document.utf8)) }
        let file = LintFile(document: DescriptorDocument.parse(Data((descriptor + security).utf8), path: "example.yaml"))
        return await OnlineChecker(transport: transport).check(file).filter { $0.ruleID == "online_id_token_algs" }
    }

    @Test func noAlgorithmInCommonIsAnError() async throws {
        let findings = await Self.findings("\nsecurity:\n  id_token_algs: [ES256]\n", published: #"["RS256"]"#)
        let finding = try #require(findings.first)
        #expect(finding.severity == .error)
        #expect(finding.location.line == 11, "at security.id_token_algs")
        // The defaults (RS256, ES256) against a server signing with PS256 only: the same error, at `protocol`.
        let defaults = await Self.findings("", published: #"["PS256"]"#)
        #expect(defaults.map(\.severity) == [.error])
    }

    @Test func anAlgorithmTheDescriptorListsAndTheServerDoesNotIsAWarning() async throws {
        let findings = await Self.findings("\nsecurity:\n  id_token_algs: [RS256, ES384]\n", published: #"["RS256", "PS256"]"#)
        #expect(findings.map(\.severity) == [.warning])
        #expect(findings.first?.message.contains("ES384") == true)
    }

    @Test func whatTheServerDoesNotPublishIsNoContradiction() async throws {
        #expect(await Self.findings("\nsecurity:\n  id_token_algs: [ES256]\n", published: nil).isEmpty)
        // Nor are the defaults, where one of them is the server's.
        #expect(await Self.findings("", published: #"["RS256"]"#).isEmpty)
    }
}
