import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlowLint

/// The rules and the generated catalog the findings on provider defaults corrected: `offline_access_consent`
/// (OpenID Connect Core §11 has a server ignore `offline_access`, not refuse the sign-in, and providers may
/// grant it without `prompt=consent`), `pkce_for_public_clients` (PKCE the provider supports is PKCE the
/// client uses), and Docs/providers.md (no cell left to a discovery document nobody read).
@Suite struct CatalogRuleTests {
    func hits(_ text: String, _ rule: String) -> [Diagnostic] {
        Linter().lint(text: text, path: "example.yaml").filter { $0.ruleID == rule }
    }

    func problems(_ text: String) -> [Diagnostic] {
        Linter().lint(text: text, path: "example.yaml").filter { $0.severity == .error }
    }

    @Test func offlineAccessWithoutConsentIsIgnoredNotRefused() throws {
        let summary = OfflineAccessConsentRule.description.summary
        #expect(!summary.contains("refuse"), "\(summary)")
        #expect(summary.contains("ignore"))
        let found = hits(Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n", "offline_access_consent")
        let message = try #require(found.first?.message)
        #expect(found.count == 1 && found[0].severity == .warning)
        #expect(message.contains("ignores") && message.contains("without_consent_prompt: true") && message.contains("prompt: consent"), "\(message)")
    }

    /// A descriptor may say its provider grants `offline_access` without a consent prompt, as Entra ID,
    /// Auth0, Okta and Keycloak do; it then needs no `prompt=consent` (before, the key was unknown and the
    /// rule asked for the prompt).
    @Test func aProviderThatGrantsOfflineAccessWithoutConsentNeedsNoPrompt() {
        let text = Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n    without_consent_prompt: true\n"
        #expect(problems(text).isEmpty, "\(problems(text))")
        #expect(hits(text, "offline_access_consent").isEmpty)
    }

    /// Saying both is a warning at the statement: the prompt only adds a consent page to every sign-in.
    @Test func bothThePromptAndTheStatementIsAWarning() throws {
        let text =
            Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n    without_consent_prompt: true\n    params:\n      prompt: consent\n"
        let found = hits(text, "offline_access_consent")
        #expect(found.count == 1)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("without_consent_prompt") })
        #expect(found.first?.location.line == line + 1)
    }

    /// A public client of a provider that supports PKCE without requiring it (GitLab) uses PKCE: no error.
    /// One whose provider takes no PKCE is still refused.
    @Test func publicClientsNeedPKCEThatIsUsedNotRequired() {
        let supported = Examples.valid + "client_auth:\n  method: none\nsecurity:\n  pkce: supported\n"
        #expect(hits(supported, "pkce_for_public_clients").isEmpty)
        let unsupported = Examples.valid + "client_auth:\n  method: none\nsecurity:\n  pkce: unsupported\n"
        #expect(hits(unsupported, "pkce_for_public_clients").count == 1)
    }

    /// Docs/providers.md never says `discovery` (or `not stated`) for a bundled provider, and every conditional
    /// cell has its footnote.
    @Test func theCatalogSaysOnlyWhatTheDescriptorsState() throws {
        let catalog = GeneratedDocs.providerCatalog
        // The providers table's rows (the security events table after it has columns of its own).
        let table = catalog.components(separatedBy: "\n## Security events")[0]
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Provider") && !$0.hasPrefix("| ---") }
        #expect(rows.count >= 40)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            // Provider, Id, Protocol, PKCE, Refresh, Device flow, Revocation, Logout, ...
            for cell in [cells[6], cells[7]] {
                #expect(!cell.contains("discovery") && !cell.contains("not stated"), "\(row)")
            }
            for label in row.matches(of: /\[\^([a-z0-9_-]+)\]/).map({ String($0.output.1) }) {
                #expect(catalog.contains("\n[^\(label)]: "), "no footnote for \(label)")
            }
        }
        #expect(catalog.contains("| conditional[^github-refresh] |"))
        #expect(catalog.contains("\n[^github-refresh]: GitHub, refresh: "))
        #expect(catalog.contains("| `gitlab` | oidc | supported |"))
    }

    /// The bundled descriptors lint clean with the corrected rules, the strict way `oauthflow lint --strict` runs.
    @Test func bundledDescriptorsStayClean() throws {
        let found = try Linter().lint(paths: [repositoryRoot.appendingPathComponent("providers")])
        #expect(found.filter { $0.ruleID == "offline_access_consent" || $0.ruleID == "pkce_for_public_clients" }.isEmpty, "\(found)")
    }
}
