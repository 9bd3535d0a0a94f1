import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

import OAuthFlowLint

/// `discovery.lacks` naming what a provider's metadata leaves out although the provider takes it (issue 55, item 12):
/// `lint --online --strict` can pass for such a provider, and says what was acknowledged.
@Suite struct AcknowledgedGapsTests {
    /// Serves one discovery document for every request.
    struct DocumentServer: HTTPTransport {
        let document: String

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(document.utf8))
        }
    }

    /// LemonLDAP::NG's gaps: confidential methods only, no `offline_access`, no end-session endpoint named.
    static let document = """
        {"issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize",
         "token_endpoint": "https://auth.example.com/token", "jwks_uri": "https://auth.example.com/jwks",
         "code_challenge_methods_supported": ["S256"], "scopes_supported": ["openid", "profile", "email"],
         "grant_types_supported": ["authorization_code", "refresh_token"],
         "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
         "id_token_signing_alg_values_supported": ["RS256"], "backchannel_logout_supported": true}
        """

    static func descriptor(lacks: String) -> String {
        """
        schema_version: 1
        id: example
        display_name: Example
        protocol: oidc
        issuer: https://auth.example.com
        discovery:
          mode: oidc
        \(lacks)
        scopes:
          default: [openid, profile, email]
          offline:
            scopes: [offline_access]
            params:
              prompt: consent
        client_auth:
          methods: [none, client_secret_basic]
        security:
          id_token_algs: [RS256]
        logout:
          backchannel_logout_supported: true
        """
    }

    static func check(_ text: String, document: String = document) async -> [Diagnostic] {
        let file = LintFile(document: DescriptorDocument.parse(Data(text.utf8), path: "example.yaml"))
        return await OnlineChecker(transport: DocumentServer(document: document)).check(file)
    }

    static let acknowledging = """
          lacks:
            - end_session
            - token_endpoint_auth_methods_supported: [none]
            - scopes_supported: [offline_access]
        """

    @Test func withoutAcknowledgementEachGapIsAWarningThatSaysHowToRecordIt() async throws {
        let findings = await Self.check(Self.descriptor(lacks: ""))
        let warnings = findings.filter { $0.severity == .warning }
        #expect(Set(warnings.map(\.ruleID)) == ["online_client_auth", "online_scopes", "online_logout"], "\(findings)")
        #expect(
            warnings.contains { $0.message.hasSuffix("record that with `- token_endpoint_auth_methods_supported: [none]` under `discovery.lacks`") },
            "\(warnings)")
        #expect(warnings.contains { $0.message.hasSuffix("record that with `- scopes_supported: [offline_access]` under `discovery.lacks`") })
        #expect(warnings.contains { $0.message.hasSuffix("add `end_session` to `discovery.lacks`") })
    }

    @Test func eachAcknowledgedGapIsAdviceThatNamesIt() async throws {
        let findings = await Self.check(Self.descriptor(lacks: Self.acknowledging))
        #expect(findings.allSatisfy { $0.severity == .info }, "what `lint --strict` fails on: \(findings)")
        let messages = findings.map(\.message)
        for acknowledged in [
            "acknowledged by `discovery.lacks` (token_endpoint_auth_methods_supported: none): client authentication `none`",
            "acknowledged by `discovery.lacks` (scopes_supported: offline_access): the descriptor asks for the scope `offline_access`",
            "acknowledged by `discovery.lacks` (end_session): the server publishes no end_session_endpoint",
        ] {
            #expect(messages.contains { $0.hasPrefix(acknowledged) }, "no `\(acknowledged)` in \(messages)")
        }
    }

    /// One entry silences one finding: acknowledging `none` leaves the scope's gap a warning.
    @Test func oneEntrySilencesOneFinding() async throws {
        let findings = await Self.check(Self.descriptor(lacks: "  lacks:\n    - token_endpoint_auth_methods_supported: [none]"))
        #expect(findings.filter { $0.severity == .warning }.map(\.ruleID).sorted() == ["online_logout", "online_scopes"], "\(findings)")
        #expect(findings.contains { $0.ruleID == "online_client_auth" && $0.severity == .info })
    }

    /// An entry the live document contradicts is a warning; one the descriptor has no use for, advice.
    @Test func anEntryTheDocumentContradictsIsAWarning() async throws {
        let document = Self.document.replacingOccurrences(of: #""client_secret_basic", "client_secret_post""#, with: #""none", "client_secret_basic""#)
            .replacingOccurrences(of: #""backchannel_logout_supported": true"#, with: #""backchannel_logout_supported": true, "end_session_endpoint": "https://auth.example.com/logout""#)
        let findings = await Self.check(
            Self.descriptor(lacks: Self.acknowledging + "\n    - grant_types_supported: [client_credentials]"), document: document)
        let stale = findings.filter { $0.ruleID == "online_lacks" }
        #expect(stale.contains { $0.severity == .warning && $0.message.contains("leaves out `none`, but it now lists it; remove the entry") }, "\(stale)")
        #expect(stale.contains { $0.severity == .warning && $0.message.contains("names `end_session`, but the server now publishes end_session_endpoint") })
        #expect(stale.contains { $0.severity == .info && $0.message.contains("`client_credentials` missing from grant_types_supported, which the descriptor does not use") })
        // Each at its own entry: `- end_session` on line 9, `[none]` on line 10, `[client_credentials]` on line 12.
        #expect(stale.map(\.location.line).sorted() == [9, 10, 12], "\(stale)")
        #expect(stale.first { $0.message.contains("`none`") }?.location.column == 47, "\(stale)")
    }

    @Test func entriesAreReadAsTheDescriptorModel() throws {
        let document = DescriptorDocument.parse(Data(Self.descriptor(lacks: Self.acknowledging).utf8), path: "example.yaml")
        #expect(document.problems.isEmpty, "\(document.problems)")
        let discovery = try #require(document.descriptor).discovery
        #expect(discovery.lacks == [.endSession])
        #expect(discovery.unlisted == [.tokenEndpointAuthMethods: ["none"], .scopes: ["offline_access"]])
        #expect(discovery.acknowledges("none", missingFrom: .tokenEndpointAuthMethods))
        #expect(!discovery.acknowledges("none", missingFrom: .scopes))
        // Written back as it is read: endpoints by name, lists as one mapping each.
        let encoded = String(decoding: try JSONEncoder().encode(discovery), as: UTF8.self)
        #expect(encoded.contains(#""lacks":["end_session",{"token_endpoint_auth_methods_supported":["none"]},{"scopes_supported":["offline_access"]}]"#), "\(encoded)")
        let decoded = try JSONDecoder().decode(ProviderDescriptor.Discovery.self, from: Data(encoded.utf8))
        #expect(decoded == discovery)
    }

    /// A misspelt list is an unknown key with the one meant, not "expected an endpoint or a mapping".
    @Test func aMisspeltListIsAnUnknownKey() throws {
        let text = Self.descriptor(lacks: "  lacks:\n    - scope_supported: [offline_access]\n    - revocation_endpoint")
        let diagnostics = Linter().lint(text: text, path: "example.yaml")
        #expect(diagnostics.contains { $0.ruleID == "unknown_key" && $0.message.contains("did you mean `scopes_supported`?") }, "\(diagnostics)")
        #expect(diagnostics.contains { $0.location.line == 10 && $0.message.contains("`revocation`") }, "\(diagnostics)")
    }
}
