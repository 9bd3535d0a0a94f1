import Foundation
import OAuthFlow
import OAuthFlowLoopback
import Testing

/// Docs/pushed-and-dpop.md's Swift lines, compiled here (DocExampleTests checks that each one appears in
/// this file); PushedAndDPoPEndToEndTests runs the same calls against the PAR and DPoP server.
struct PushedAndDPoPDocExamples {
    static let page = "Docs/pushed-and-dpop.md"

    func callingAPIs(manager: TokenManager) async throws {
        let response = try await manager.perform(TransportRequest(method: .get, url: URL(string: "https://api.example.com/me")!))
        let tokens = try await manager.validTokens()
        let answer = try await tokens.send(TransportRequest(method: .post, url: URL(string: "https://api.example.com/orders")!))
        _ = (response, answer)
    }

    func richAuthorizationRequests(oauth: OAuth) async throws {
        let payment = AuthorizationDetail(type: "payment_initiation", ["instructedAmount": .object(["currency": .string("EUR"), "amount": .string("10.00")])])
        let result = try await oauth.signIn(to: "open-bank", browser: SystemBrowser(environment: ProcessInfo.processInfo.environment), authorizationDetails: [payment])
        let granted = result.tokens.authorizationDetails ?? []
        let token = try await oauth.serviceTokens(for: "open-bank").accessToken(OAuthClient.ServiceTokenRequest(authorizationDetails: [payment]))
        _ = (granted, token)
    }

    func fapi2InCode(descriptor given: ProviderDescriptor) throws {
        var descriptor = given
        descriptor.security.profile = .fapi2
        let provider = try descriptor.resolve()
        _ = provider
    }

    func grantManagement(oauth: OAuth, browser: any BrowserOpener) async throws {
        let first = try await oauth.signIn(to: "fapi-bank", browser: browser, grantManagement: .create)
        let grantID = try #require(first.session.tokens.grantID)
        try await oauth.signIn(to: "fapi-bank", browser: browser, grantManagement: .merge(grantID: grantID))
        let manager = try await oauth.session("fapi-bank")
        let grant = try await manager.grant()
        try await manager.revokeGrant()
        _ = grant
    }

    func credentialHelpers(access: SessionAccess) async throws {
        let session = try await access.bearerSession(for: SessionKey(providerID: "corp"), tool: "git")
        _ = session
    }
}
