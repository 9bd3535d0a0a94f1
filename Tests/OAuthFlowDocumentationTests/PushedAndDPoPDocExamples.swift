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

    func credentialHelpers(access: SessionAccess) async throws {
        let session = try await access.bearerSession(for: SessionKey(providerID: "corp"), tool: "git")
        _ = session
    }
}
