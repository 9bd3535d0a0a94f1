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

    func pinning(store: any TokenStore, oauth: OAuth) throws {
        var pinned = MCPAuthorization.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
        pinned.pinnedProviders = [try oauth.provider("corp-mcp")]
        pinned.requiresPinnedProvider = true
        _ = MCPAuthorization(pinned)
    }
}
