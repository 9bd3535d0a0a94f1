import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCPAuth

/// Docs/mcp.md's Swift lines for `OAuthFlowMCPAuth`, compiled here (DocExampleTests checks that each one appears in a
/// file it reads).
struct MCPAuthDocExamples {
    static let page = "Docs/mcp.md"

    func withoutTheSDK(store: any TokenStore) async throws {
        let authorization = MCPAuthorization(MCPAuthorization.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment)))
        let server = URL(string: "https://mcp.example.com/mcp")!
        let found = try await authorization.inspect(server)   // discovery only: nothing registered, nobody signed in
        try await authorization.signIn(to: server)   // the browser, once
        let token = try await authorization.validTokens(for: server).accessToken   // refreshed when it is about to expire
        _ = (found, token)
    }

    /// "Through an enterprise identity provider".
    func enterprise(store: any TokenStore, oauth: OAuth, oktaSecret: Secret, notesSecret: Secret) async throws {
        var enterprise = MCPAuthorization.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
        enterprise.enterpriseIdentityProvider = .init(provider: try oauth.provider("okta-org"), client: ClientSettings(clientID: "0oa1agent", secret: oktaSecret))
        enterprise.clients = ["https://auth.notes.example.com": ClientSettings(clientID: "agent-at-notes", secret: notesSecret)]
        let agent = MCPAuthorization(enterprise)
        try await agent.signIn(to: URL(string: "https://mcp.notes.example.com/mcp")!)
    }

    /// "The authorization server's side".
    func redeemingGrants(oauth: OAuth, assertion: String, authenticatedClientID: String, requestedResource: String?) async throws
        -> [String: String]
    {
        let grants = try IdentityAssertionGrantVerifier(
            identityProviders: [try oauth.provider("corp-idp")],
            settings: .init(issuer: "https://as.example.com", resources: ["https://mcp.example.com/mcp"]))
        do {
            let grant = try await grants.verify(Secret(assertion), client: authenticatedClientID, resource: requestedResource)
            // Issue an access token for grant.subject, grant.resource and grant.scopes, bound to grant.boundKeyThumbprint if any.
            return ["sub": grant.subject, "resource": grant.resource]
        } catch {
            // Answer HTTP 400 with error.answer: {"error": "invalid_grant", "error_description": …}.
            return error.answer
        }
    }

    /// "Workload identity: a JWT instead of a user".
    func workload(store: any TokenStore) {
        var workload = ClientSettings(clientID: "reports-job")
        workload.assertion = .file("/var/run/secrets/tokens/..data/mcp-token")
        var unattended = MCPAuthorization.Configuration(store: store, browser: NoBrowser())
        unattended.clients = ["https://auth.notes.example.com": workload]
        workload.assertion = .callback { Secret(try await ciIdentityToken(audience: "https://auth.notes.example.com")) }
        _ = MCPAuthorization(unattended)
    }

    /// Stands for the CI runner's API that hands a job its identity token.
    func ciIdentityToken(audience: String) async throws -> String { audience }

    func pinning(store: any TokenStore, oauth: OAuth) throws {
        var pinned = MCPAuthorization.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
        pinned.pinnedProviders = [try oauth.provider("corp-mcp")]
        pinned.requiresPinnedProvider = true
        _ = MCPAuthorization(pinned)
    }
}
