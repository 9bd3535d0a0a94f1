import Foundation
import Hummingbird
import OAuthFlow
import OAuthFlowHummingbird
import Testing

/// Docs/api-protection.md's Swift lines, compiled here (DocExampleTests checks that each one appears in
/// this file); ProtectedAPIEndToEndTests runs the same calls against Authlib's JWT and opaque tokens.
struct APIProtectionDocExamples {
    static let page = "Docs/api-protection.md"

    func hostCode(authorizationHeader: String) async throws {
        let registry = try ProviderRegistry.load()
        let api = try ProtectedResource.configured(
            descriptors: [try registry.provider(named: "notes-idp")],
            settings: .init(resource: URL(string: "https://notes.example.com")!, scopesSupported: ["notes:read", "notes:write"]))
        let principal = try await api.authenticate(AccessRequest(authorization: authorizationHeader), requiring: ["notes:read"])
        print(principal.subject ?? "-", principal.clientID ?? "-", principal.scopes)
    }

    /// README.md's lines.
    func readme(registry: ProviderRegistry, authorizationHeader: String) async throws {
        let api = try ProtectedResource.configured(
            descriptors: [try registry.provider(named: "auth0")],
            settings: .init(resource: URL(string: "https://api.example.com")!))
        let principal = try await api.authenticate(AccessRequest(authorization: authorizationHeader), requiring: ["read:notes"])
        _ = principal
    }

    func hummingbird(api: ProtectedResource) {
        let router = Router(context: BasicAccessRequestContext.self)
        router.addProtectedResourceMetadata(api)
        router.group("notes")
            .add(middleware: AccessTokenMiddleware(api, requiring: ["notes:read"]))
            .get { _, context in context.accessPrincipal?.subject ?? "" }
    }
}
