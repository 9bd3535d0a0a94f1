#if Hummingbird
import OAuthFlow
import ServiceLifecycle

/// Keeps a protected API's signing keys fresh as a service of the host's `ServiceGroup`: discovery and
/// every trusted provider's JWKS are fetched when the group starts, and again before each set ages out,
/// so that no request waits for a fetch (`ProtectedResource.keepKeysFresh()`).
///
/// ```swift
/// let api = try oauth.protectedResource(trusting: ["keycloak"], settings: settings)
/// let app = Application(router: router, configuration: configuration)
/// let services = ServiceGroup(services: [app, KeySetRefresher(api)], logger: logger)
/// try await services.run()
/// ```
public struct KeySetRefresher: Service {
    /// The API whose keys it keeps.
    public let resource: ProtectedResource

    /// - Parameter resource: The API whose trusted providers' keys it keeps fresh.
    public init(_ resource: ProtectedResource) {
        self.resource = resource
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await resource.keepKeysFresh()
        }
        // Nothing to keep fresh (or the shutdown came): return with the group, not before it.
        guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
        try await gracefulShutdown()
    }
}
#endif
