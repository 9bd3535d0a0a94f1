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

    func credentialHelpers(access: SessionAccess) async throws {
        let session = try await access.bearerSession(for: SessionKey(providerID: "corp"), tool: "git")
        _ = session
    }
}
