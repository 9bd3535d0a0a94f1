#if Vapor
import OAuthFlow
import Vapor

/// Keeps a protected API's signing keys fresh while a Vapor application runs, from boot to shutdown, so that no
/// request waits for a JWKS fetch (`ProtectedResource.keepKeysFresh()`).
///
/// ```swift
/// app.lifecycle.use(KeySetRefreshHandler(api))
/// ```
public final class KeySetRefreshHandler: LifecycleHandler {
    /// The API whose keys it keeps.
    public let resource: ProtectedResource
    private let task = Locked<Task<Void, Never>?>(nil)

    /// - Parameter resource: The API whose trusted providers' keys it keeps fresh.
    public init(_ resource: ProtectedResource) {
        self.resource = resource
    }

    public func didBoot(_ application: Application) throws {
        let resource = resource
        let started = Task { await resource.keepKeysFresh() }
        task.withLock { previous in
            previous?.cancel()
            previous = started
        }
    }

    public func shutdown(_ application: Application) {
        task.withLock { running in
            running?.cancel()
            running = nil
        }
    }
}
#endif
