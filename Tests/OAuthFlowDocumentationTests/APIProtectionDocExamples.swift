import Foundation
import Hummingbird
import Logging
import OAuthFlow
import OAuthFlowHummingbird
import ServiceLifecycle
import Testing

/// Docs/api-protection.md's Swift lines, compiled here (DocExampleTests checks that each one appears in
/// this file); ProtectedAPIEndToEndTests runs the same calls against Authlib's JWT and opaque tokens.
struct APIProtectionDocExamples {
    static let page = "Docs/api-protection.md"

    func hostCode(authorizationHeader: String) async throws {
        let oauth = OAuth(OAuth.Configuration(providerDirectories: [URL(fileURLWithPath: "/etc/notes/providers")]))
        let api = try oauth.protectedResource(
            trusting: ["notes-idp"],
            settings: .init(resource: URL(string: "https://notes.example.com")!, scopesSupported: ["notes:read", "notes:write"]))
        let principal = try await api.authenticate(ProtectedResource.Request(authorization: authorizationHeader), requiring: ["notes:read"])
        print(principal.subject ?? "-", principal.clientID ?? "-", principal.scopes)
    }

    func richAuthorizationDetails(api: ProtectedResource, authorizationHeader: String) async throws {
        let payer = try await api.authenticate(ProtectedResource.Request(authorization: authorizationHeader), requiring: ["payments"], details: ["payment_initiation"])
        let amounts = payer.authorizationDetails(ofType: "payment_initiation").map { $0["instructedAmount"] }
        _ = amounts
    }

    /// Docs/api-protection.md, step-up authentication.
    func stepUp(api: ProtectedResource, authorizationHeader: String) async throws {
        let owner = try await api.authenticate(ProtectedResource.Request(authorization: authorizationHeader), stepUp: .init(acrValues: ["urn:example:mfa"], maximumAge: 300))
        _ = owner
    }

    /// One token, checked once.
    func oneToken(oauth: OAuth, token: Secret) async throws -> ProtectedResource.Principal {
        let principal = try await oauth.verifyAccessToken(token, issuedBy: "notes-idp", audience: "https://notes.example.com")
        return principal
    }

    /// The types underneath, with the client settings the CLI would find.
    func underneath() throws -> ProtectedResource {
        let resolver = ClientSettingsResolver(environment: ProcessInfo.processInfo.environment)
        let notes = try OAuth(OAuth.Configuration(clientSettings: resolver)).protectedResource(
            trusting: ["notes-idp"], settings: .init(resource: URL(string: "https://notes.example.com")!))
        return notes
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    func hummingbird(api: ProtectedResource) {
        let router = Router(context: BasicAccessRequestContext.self)
        router.addProtectedResourceMetadata(api)
        router.group("notes")
            .add(middleware: AccessTokenMiddleware(api, requiring: ["notes:read"]))
            .get { _, context in context.accessPrincipal?.subject ?? "" }
    }

    /// Docs/api-protection.md, keys fetched ahead of requests (Hummingbird).
    func keySetRefresher(api: ProtectedResource, app: some Service, logger: Logger) async throws {
        let services = ServiceGroup(services: [app, KeySetRefresher(api)], gracefulShutdownSignals: [.sigterm], logger: logger)
        try await services.run()
    }
}
